// Build the hook's fast entry as CommonJS: dist/hook/hook-entry.js and the few modules it loads,
// transpiled from the same sources as dist/src (src/hook-entry.ts and its static imports), with a
// package.json that marks dist/hook as CommonJS. Node starts a CommonJS file several milliseconds
// sooner than an ES module (no ES module loader to set up, modules read synchronously), on every
// tool call. No bundler: the closure is a handful of files, and TypeScript is already here.
// Run by `npm run build` after tsc; test/helpers/build-hook.ts runs it before the tests when a
// source file is newer than the build.
import { mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const src = path.join(root, 'src');

/** Static imports of one TypeScript file: local files (as .ts paths) and bare specifiers. */
function importsOf(file) {
  const text = readFileSync(file, 'utf8');
  const specs = [...text.matchAll(/^import\s[^;]*?from\s+'([^']+)';/gms)].filter((m) => !/^import\s+type\s/.test(m[0])).map((m) => m[1]);
  return {
    local: specs.filter((s) => s.startsWith('.')).map((s) => path.resolve(path.dirname(file), s.replace(/\.js$/, '.ts'))),
    bare: specs.filter((s) => !s.startsWith('.')),
  };
}

/** Write `file` whole or not at all: a test spawning the entry never reads half a file. */
function writeAtomic(file, text) {
  mkdirSync(path.dirname(file), { recursive: true });
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, text);
  renameSync(tmp, file);
}

const DEFAULT_OUT = path.join(root, 'dist', 'hook');

/** src/hook-entry.ts and every file it imports, refusing anything but node built-ins. */
function closure() {
  const files = [];
  const todo = [path.join(src, 'hook-entry.ts')];
  while (todo.length) {
    const file = todo.pop();
    if (files.includes(file)) continue;
    files.push(file);
    const { local, bare } = importsOf(file);
    const heavy = bare.filter((b) => !b.startsWith('node:'));
    if (heavy.length) throw new Error(`${path.relative(root, file)} imports ${heavy.join(', ')}: the hook entry may load node built-ins only`);
    todo.push(...local);
  }
  return files;
}

/** True when dist/hook/hook-entry.js is missing or older than a source file of the hook. */
export function isHookBuildStale(outDir = DEFAULT_OUT) {
  const built = statSync(path.join(outDir, 'hook-entry.js'), { throwIfNoEntry: false });
  return !built || closure().some((f) => statSync(f).mtimeMs > built.mtimeMs);
}

/** Write dist/hook and return the source files it holds, relative to the root. */
export async function buildHook(outDir = DEFAULT_OUT) {
  const { default: ts } = await import('typescript'); // a devDependency, loaded only to build
  const files = closure();
  const outputs = files.map((file) => {
    const out = ts.transpileModule(readFileSync(file, 'utf8'), {
      fileName: file,
      reportDiagnostics: true,
      compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022, esModuleInterop: true, strict: true },
    });
    if (out.diagnostics?.length) throw new Error(`${path.relative(root, file)}: ${ts.flattenDiagnosticMessageText(out.diagnostics[0].messageText, '\n')}`);
    return [path.join(outDir, path.relative(src, file).replace(/\.ts$/, '.js')), out.outputText];
  });
  // The entry (files[0]) last: its mtime says the build is complete (isHookBuildStale).
  writeAtomic(path.join(outDir, 'package.json'), '{ "type": "commonjs" }\n');
  for (const [dest, text] of outputs.reverse()) writeAtomic(dest, text);
  return files.map((f) => path.relative(root, f));
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) await buildHook();
