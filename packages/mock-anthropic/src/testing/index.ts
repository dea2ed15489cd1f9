export * from './claudeTestHome.ts';
