// Build the Claude Code plugin's tree: exactly the files the plugin runs, and nothing Claude Code
// would act on at install time (no package.json, no lockfile: it installs nothing, no node_modules).
//   .claude-plugin/plugin.json   the manifest (copied from the repo)
//   hooks/hooks.json             the activity hook's handlers (copied)
//   hooks/newer-events.json      its handlers for events newer than 2.1.197 (copied; named in plugin.json)
//   skills/dispatch-watchdog/SKILL.md  the lead's skill (copied)
//   bundle/hook.cjs, bundle/cli.cjs, bundle/log-scan.cjs  built from src/ (scripts/bundle.mjs)
//   LICENSE                      the licence the copied and built files are under
// `npm run build:plugin` writes it into plugin/ (gitignored): `claude --plugin-dir plugin` loads it.
// scripts/release-plugin.mjs publishes the same tree on the release branch the marketplace entry
// (.claude-plugin/marketplace.json) points at. Deterministic: the same src/ gives the same bytes.
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildBundles } from './bundle.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** The repo's files the plugin tree holds as they are. */
export const COPIED = ['.claude-plugin/plugin.json', 'hooks/hooks.json', 'hooks/newer-events.json', 'skills/dispatch-watchdog/SKILL.md', 'LICENSE'];

/** The plugin tree in memory: [{ file (relative, '/'-separated), text }], sorted by file. */
export async function buildPluginTree() {
  const files = COPIED.map((file) => ({ file, text: readFileSync(path.join(root, file), 'utf8') }));
  for (const { file, text } of await buildBundles()) files.push({ file, text });
  return files.sort((a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : 0));
}

/** Write the plugin tree into `outDir` (absolute, or relative to the repo root), replacing what was there. */
export async function writePluginTree(outDir = 'plugin') {
  const dir = path.resolve(root, outDir);
  // Never the repo itself or a folder holding it (the tree replaces what is there).
  const up = path.relative(dir, root);
  if (up === '' || !(up.startsWith('..') || path.isAbsolute(up))) throw new Error(`refusing to replace ${dir}: it holds the repo`);
  const files = await buildPluginTree();
  rmSync(dir, { recursive: true, force: true });
  for (const { file, text } of files) {
    mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
    writeFileSync(path.join(dir, file), text);
  }
  return { dir, files };
}

// `node scripts/build-plugin.mjs [--out DIR]` (default plugin/).
if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const at = process.argv.indexOf('--out');
  const out = at > 0 ? process.argv[at + 1] : 'plugin';
  if (!out) throw new Error('--out needs a directory');
  const { dir, files } = await writePluginTree(out);
  const bytes = files.reduce((n, f) => n + Buffer.byteLength(f.text), 0);
  process.stdout.write(
    `wrote the plugin tree into ${path.relative(process.cwd(), dir) || '.'}: ${files.length} files, ${(bytes / 1024 / 1024).toFixed(1)} MB (claude --plugin-dir ${path.relative(process.cwd(), dir) || '.'})\n`,
  );
}
