import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';

/*
 * Finds every use of `node:child_process` in the repository's own sources and says, for each, whether it can
 * start a shell: `exec`/`execSync` always do; `spawn`/`execFile`/`fork` and their sync forms do with a
 * `shell` option that is not literally `false`, or when the program they start is a shell. A use the reader
 * cannot follow (options built elsewhere, a spread, the function passed around other than through
 * `promisify`) is reported as unanalysable, so the audit never passes by not looking.
 */

const CHILD_PROCESS_MODULES = new Set(['node:child_process', 'child_process']);
const ALWAYS_SHELL = new Set(['exec', 'execSync']);
const SPAWNERS = new Set(['spawn', 'spawnSync', 'execFile', 'execFileSync', 'fork', 'exec', 'execSync']);
const SHELL_PROGRAMS = /^(?:.*\/)?(?:sh|bash|dash|zsh|ksh|fish|csh|tcsh|cmd(?:\.exe)?|powershell(?:\.exe)?|pwsh)$/;

export interface ChildProcessCall {
  /** Repository-relative path and 1-based line. */
  readonly file: string;
  readonly line: number;
  /** The child_process function called (through an alias when promisified). */
  readonly fn: string;
  /** The program when it is a string literal, else the source text of the first argument. */
  readonly program: string;
  /** Why this call can start a shell, or undefined when it cannot. */
  readonly shell: string | undefined;
}

/** Every tracked or new source file of the repository (git knows what is ours; node_modules is not). */
export function repositorySources(root: string): string[] {
  const listed = execFileSync(
    'git',
    [
      'ls-files',
      '--cached',
      '--others',
      '--exclude-standard',
      '--',
      '*.ts',
      '*.mts',
      '*.cts',
      '*.js',
      '*.mjs',
      '*.cjs',
      '*.tsx',
    ],
    { cwd: root, encoding: 'utf8' },
  );
  return [...new Set(listed.split('\n').filter((path) => path !== ''))];
}

export function childProcessCalls(root: string, files: readonly string[]): ChildProcessCall[] {
  const calls: ChildProcessCall[] = [];
  for (const file of files) {
    let text: string;
    try {
      text = readFileSync(join(root, file), 'utf8');
    } catch {
      continue; // listed but deleted in the worktree
    }
    if (!text.includes('child_process')) continue;
    calls.push(...childProcessCallsInText(file, text));
  }
  return calls;
}

/** The child_process calls of one source text. */
export function childProcessCallsInText(file: string, text: string): ChildProcessCall[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  /** Local name → child_process function, for named imports and promisified aliases. */
  const functions = new Map<string, string>();
  /** Local names bound to the whole module (namespace or default import, require). */
  const modules = new Set<string>();
  const calls: ChildProcessCall[] = [];
  const at = (node: ts.Node) => source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1;
  const report = (node: ts.Node, fn: string, program: string, shell: string | undefined) =>
    calls.push({ file, line: at(node), fn, program, shell });

  const isChildProcessSpecifier = (node: ts.Expression | undefined) =>
    node !== undefined && ts.isStringLiteral(node) && CHILD_PROCESS_MODULES.has(node.text);

  // Bindings first, so a call above its import's position is still recognised.
  const bind = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node) && isChildProcessSpecifier(node.moduleSpecifier as ts.Expression)) {
      const clause = node.importClause;
      if (clause?.name) modules.add(clause.name.text);
      const named = clause?.namedBindings;
      if (named && ts.isNamespaceImport(named)) modules.add(named.name.text);
      if (named && ts.isNamedImports(named)) {
        for (const element of named.elements) {
          if (element.isTypeOnly || clause?.isTypeOnly) continue;
          functions.set(element.name.text, (element.propertyName ?? element.name).text);
        }
      }
    }
    if (ts.isVariableDeclaration(node) && node.initializer && ts.isIdentifier(node.name)) {
      const init = node.initializer;
      // const cp = require('node:child_process')
      if (ts.isCallExpression(init) && ts.isIdentifier(init.expression) && init.expression.text === 'require') {
        if (isChildProcessSpecifier(init.arguments[0])) modules.add(node.name.text);
      }
      // const run = promisify(execFile)
      if (ts.isCallExpression(init) && ts.isIdentifier(init.expression) && init.expression.text === 'promisify') {
        const target = init.arguments[0];
        const fn = target && ts.isIdentifier(target) ? functions.get(target.text) : undefined;
        if (fn) functions.set(node.name.text, fn);
      }
    }
    ts.forEachChild(node, bind);
  };
  bind(source);

  const calledFunction = (callee: ts.Expression): string | undefined => {
    if (ts.isIdentifier(callee)) return functions.get(callee.text);
    if (
      ts.isPropertyAccessExpression(callee) &&
      ts.isIdentifier(callee.expression) &&
      modules.has(callee.expression.text)
    ) {
      return SPAWNERS.has(callee.name.text) ? callee.name.text : undefined;
    }
    return undefined;
  };

  const visit = (node: ts.Node): void => {
    if (ts.isCallExpression(node)) {
      const fn = calledFunction(node.expression);
      if (fn) report(node, fn, programOf(node, source), shellReason(fn, node, source));
      if (node.expression.kind === ts.SyntaxKind.ImportKeyword && isChildProcessSpecifier(node.arguments[0])) {
        report(node, 'import()', '?', 'a dynamic import of child_process this audit cannot follow');
      }
    } else if (ts.isIdentifier(node) && functions.has(node.text) && !isAnalysedReference(node)) {
      report(node, functions.get(node.text)!, '?', 'the function is used in a way this audit cannot follow');
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return calls;
}

/** References the audit already accounts for: the import itself, a call, a promisify argument. */
function isAnalysedReference(node: ts.Identifier): boolean {
  const parent = node.parent;
  if (ts.isImportSpecifier(parent)) return true;
  // A name that only shares the spelling: a property key, a member access, a method or parameter name.
  if (
    (ts.isPropertyAssignment(parent) || ts.isPropertyDeclaration(parent) || ts.isMethodDeclaration(parent)) &&
    parent.name === node
  ) {
    return true;
  }
  if ((ts.isPropertyAccessExpression(parent) || ts.isPropertySignature(parent)) && parent.name === node) return true;
  if (ts.isParameter(parent) && parent.name === node) return true;
  if (ts.isCallExpression(parent) && parent.expression === node) return true;
  if (ts.isVariableDeclaration(parent) && parent.name === node) return true;
  if (
    ts.isCallExpression(parent) &&
    ts.isIdentifier(parent.expression) &&
    parent.expression.text === 'promisify' &&
    ts.isVariableDeclaration(parent.parent)
  ) {
    return true;
  }
  // `typeof spawn`, a type position
  return ts.isTypeQueryNode(parent) || ts.isTypeReferenceNode(parent);
}

function programOf(call: ts.CallExpression, source: ts.SourceFile): string {
  const first = call.arguments[0];
  if (!first) return '';
  return ts.isStringLiteralLike(first) ? first.text : first.getText(source);
}

function shellReason(fn: string, call: ts.CallExpression, source: ts.SourceFile): string | undefined {
  if (ALWAYS_SHELL.has(fn)) return `${fn} always runs its command through a shell`;
  const program = call.arguments[0];
  if (program && ts.isStringLiteralLike(program) && SHELL_PROGRAMS.test(program.text)) {
    return `the program is the shell ${program.text}`;
  }
  if (program && ts.isStringLiteralLike(program)) {
    const args = call.arguments[1];
    const literals =
      args && ts.isArrayLiteralExpression(args)
        ? args.elements.filter(ts.isStringLiteralLike).map((element) => element.text)
        : [];
    if (/^(?:.*\/)?script$/.test(program.text) && literals.some((arg) => /^-[a-zA-Z]*c[a-zA-Z]*$/.test(arg))) {
      return 'script runs its -c command through a shell';
    }
    if (
      /^(?:.*\/)?(?:npm|pnpm|yarn)$/.test(program.text) &&
      literals.some((arg) => /^(?:run|run-script|exec|x)$/.test(arg))
    ) {
      return `${program.text} runs package scripts through a shell`;
    }
    if (/^(?:.*\/)?npx$/.test(program.text)) return 'npx runs its command through a shell';
  }
  const options = optionsOf(call, source);
  if (options === undefined) return undefined;
  if (!ts.isObjectLiteralExpression(options)) {
    return `options ${options.getText(source)} are not an object literal this audit can read`;
  }
  for (const property of options.properties) {
    if (ts.isSpreadAssignment(property)) return `options spread ${property.expression.getText(source)}`;
    const name = property.name && ts.isIdentifier(property.name) ? property.name.text : property.name?.getText(source);
    if (name !== 'shell') continue;
    if (ts.isPropertyAssignment(property) && property.initializer.kind === ts.SyntaxKind.FalseKeyword) continue;
    return `shell: ${ts.isPropertyAssignment(property) ? property.initializer.getText(source) : '(shorthand)'}`;
  }
  return undefined;
}

/**
 * The options argument: after the program and its argument list (`spawn(file, args, options)`), or second
 * when the second is not a list. A name is read through its `const` initializer in the same file.
 */
function optionsOf(call: ts.CallExpression, source: ts.SourceFile): ts.Expression | undefined {
  const [, second, third] = call.arguments.map((argument) => resolveConst(argument, source));
  if (third !== undefined && !ts.isFunctionLike(third)) return third;
  if (second === undefined || ts.isArrayLiteralExpression(second) || ts.isFunctionLike(second)) return undefined;
  // `spawn(file, someList)`: a list built elsewhere holds arguments, never options.
  if (ts.isIdentifier(second) || ts.isCallExpression(second) || ts.isPropertyAccessExpression(second)) return undefined;
  return second;
}

function resolveConst(expression: ts.Expression, source: ts.SourceFile): ts.Expression {
  if (!ts.isIdentifier(expression)) return expression;
  let found: ts.Expression | undefined;
  const look = (node: ts.Node): void => {
    if (found) return;
    if (
      ts.isVariableDeclaration(node) &&
      ts.isIdentifier(node.name) &&
      node.name.text === expression.text &&
      node.initializer &&
      ts.isVariableDeclarationList(node.parent) &&
      (node.parent.flags & ts.NodeFlags.Const) !== 0
    ) {
      found = node.initializer;
      return;
    }
    ts.forEachChild(node, look);
  };
  look(source);
  return found ?? expression;
}
