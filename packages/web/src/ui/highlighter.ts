import type { HighlighterCore, ThemedToken } from '@shikijs/core';

/*
 * Code highlighting with shiki's fine-grained core: the JavaScript regex engine (no WASM), two
 * themes, and a handful of grammars each loaded the first time a block needs it. Everything here is
 * a lazy chunk; the first paint never waits for it.
 */

const grammars: Readonly<Record<string, () => Promise<unknown>>> = {
  typescript: () => import('@shikijs/langs/typescript'),
  tsx: () => import('@shikijs/langs/tsx'),
  javascript: () => import('@shikijs/langs/javascript'),
  json: () => import('@shikijs/langs/json'),
  bash: () => import('@shikijs/langs/bash'),
  python: () => import('@shikijs/langs/python'),
  diff: () => import('@shikijs/langs/diff'),
  yaml: () => import('@shikijs/langs/yaml'),
  css: () => import('@shikijs/langs/css'),
  html: () => import('@shikijs/langs/html'),
  rust: () => import('@shikijs/langs/rust'),
  go: () => import('@shikijs/langs/go'),
  sql: () => import('@shikijs/langs/sql'),
};

const aliases: Readonly<Record<string, string>> = {
  ts: 'typescript',
  mts: 'typescript',
  js: 'javascript',
  mjs: 'javascript',
  jsx: 'tsx',
  sh: 'bash',
  shell: 'bash',
  zsh: 'bash',
  console: 'bash',
  py: 'python',
  yml: 'yaml',
  rs: 'rust',
  patch: 'diff',
  jsonc: 'json',
};

let highlighter: Promise<HighlighterCore> | undefined;
const loading = new Map<string, Promise<void>>();

function core(): Promise<HighlighterCore> {
  highlighter ??= (async () => {
    const [{ createHighlighterCore }, { createJavaScriptRegexEngine }] = await Promise.all([
      import('@shikijs/core'),
      import('@shikijs/engine-javascript'),
    ]);
    return createHighlighterCore({
      themes: [import('@shikijs/themes/github-light'), import('@shikijs/themes/github-dark')],
      langs: [],
      engine: createJavaScriptRegexEngine(),
    });
  })();
  return highlighter;
}

export function languageOf(label: string): string | null {
  const name = label.toLowerCase();
  const resolved = aliases[name] ?? name;
  return grammars[resolved] === undefined ? null : resolved;
}

/** Tokens with `--shiki-light` / `--shiki-dark` colours, or null for a language we do not highlight. */
export async function highlight(code: string, label: string): Promise<ThemedToken[][] | null> {
  const lang = languageOf(label);
  if (lang === null) return null;
  const instance = await core();
  if (!instance.getLoadedLanguages().includes(lang)) {
    let pending = loading.get(lang);
    if (pending === undefined) {
      // biome-ignore lint/suspicious/noExplicitAny: each grammar module's default export is shiki's LanguageInput
      pending = grammars[lang]!().then((module) => instance.loadLanguage((module as { default: any }).default));
      loading.set(lang, pending);
    }
    await pending;
  }
  return instance.codeToTokens(code, {
    lang,
    themes: { light: 'github-light', dark: 'github-dark' },
    defaultColor: false,
  }).tokens;
}
