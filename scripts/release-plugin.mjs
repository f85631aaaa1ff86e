// Publish the Claude Code plugin: the tree scripts/build-plugin.mjs builds from src/, committed
// whole as the next commit of the release branch `claude-plugin` (its root is the plugin: nothing
// else is on it) and tagged `claude-plugin-v<version>`. The marketplace entry on main
// (.claude-plugin/marketplace.json: `github` source, `ref: "claude-plugin"`) points at that
// branch, so `/plugin install` fetches only what runs, and main never holds a generated file
// (the changesets/action way: built files live only on the release ref). docs/architecture.md.
//
//   node scripts/release-plugin.mjs                 commit the build onto claude-plugin, tag it
//   node scripts/release-plugin.mjs --push origin   the same, then push the branch and the tag
//   node scripts/release-plugin.mjs --check [REF]   exit 1 unless REF's tree (default: the branch,
//                                                   else origin/claude-plugin) is the build of src/
//
// Built from the committed source only (it refuses a checkout whose plugin inputs have
// uncommitted changes); each release commit names the main commit it was built from. Publishing
// an unchanged tree makes no commit. A version is published once: a tag that exists with another
// tree is an error (bump package.json's version).
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildPluginTree } from './build-plugin.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** The release branch the marketplace entry's `ref` names. */
export const RELEASE_BRANCH = 'claude-plugin';
/** The tag of a release: `claude-plugin-v<version>`. */
export const releaseTag = (version) => `${RELEASE_BRANCH}-v${version}`;
/** What the plugin tree is built from: a release refuses uncommitted changes here. */
export const INPUTS = ['src', 'scripts', 'package.json', 'package-lock.json', '.claude-plugin', 'hooks', 'skills', 'LICENSE'];

const git = (args, opts = {}) => execFileSync('git', args, { cwd: root, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024, ...opts }).trim();
const tryGit = (args) => {
  try {
    return git(args, { stdio: ['ignore', 'pipe', 'ignore'] });
  } catch {
    return undefined;
  }
};

/** Write `files` into the object database as one tree (a private index, the checkout untouched); its hash. */
export function writeTree(files) {
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'dw-release-'));
  try {
    const env = { ...process.env, GIT_INDEX_FILE: path.join(tmp, 'index') };
    const lines = files.map(({ file, text }) => `100644 ${git(['hash-object', '-w', '--stdin'], { input: text })}\t${file}`);
    git(['update-index', '--add', '--index-info'], { env, input: `${lines.join('\n')}\n` });
    return git(['write-tree'], { env });
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

/** Build the tree from src/ and publish it on the release branch; what happened. */
export async function release({ push } = {}) {
  const dirty = git(['status', '--porcelain', '--', ...INPUTS]);
  if (dirty) throw new Error(`uncommitted changes in the plugin's inputs (commit them first: a release names the commit it was built from):\n${dirty}`);
  const source = git(['rev-parse', 'HEAD']);
  const version = JSON.parse(git(['show', 'HEAD:package.json'])).version;
  // Claude Code keys the installed copy and its updates by the manifest's version.
  const manifestVersion = JSON.parse(git(['show', 'HEAD:.claude-plugin/plugin.json'])).version;
  if (manifestVersion !== version) throw new Error(`.claude-plugin/plugin.json says version ${manifestVersion}, package.json ${version}: make them the same`);
  const tree = writeTree(await buildPluginTree());
  const tag = releaseTag(version);
  const tagged = tryGit(['rev-parse', '--verify', '-q', `refs/tags/${tag}^{tree}`]);
  if (tagged && tagged !== tree)
    throw new Error(`${tag} is already published with another tree: bump the version in package.json (and .claude-plugin/plugin.json) and release again`);
  const branchRef = `refs/heads/${RELEASE_BRANCH}`;
  const previous = tryGit(['rev-parse', '--verify', '-q', branchRef]);
  let commit = previous;
  const changed = !previous || git(['rev-parse', `${previous}^{tree}`]) !== tree;
  if (changed) {
    const message = `dispatch-watchdog ${version}: the Claude Code plugin, built from ${source}\n\nBuilt by scripts/release-plugin.mjs (npm run release:plugin); nothing here is edited by hand.\n`;
    commit = git(['commit-tree', tree, ...(previous ? ['-p', previous] : []), '-F', '-'], { input: message });
    git(['update-ref', branchRef, commit, ...(previous ? [previous] : [])]);
  }
  if (!tagged) git(['tag', tag, commit]);
  if (push) git(['push', push, `${branchRef}:${branchRef}`, `refs/tags/${tag}:refs/tags/${tag}`], { stdio: 'inherit' });
  return { source, version, tree, commit, tag, changed };
}

/** Compare `ref`'s tree with a fresh build: the files that differ (missing, extra or changed). */
export async function check(ref) {
  const want = writeTree(await buildPluginTree());
  const have = git(['rev-parse', `${ref}^{tree}`]);
  if (want === have) return [];
  return git(['diff-tree', '-r', '--name-only', have, want]).split('\n').filter(Boolean);
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  if (args[0] === '--check') {
    const ref = args[1] ?? (tryGit(['rev-parse', '--verify', '-q', `refs/heads/${RELEASE_BRANCH}`]) ? RELEASE_BRANCH : `origin/${RELEASE_BRANCH}`);
    const differ = await check(ref);
    if (differ.length) {
      process.stderr.write(`${ref} is not the plugin tree src/ builds; these differ: ${differ.join(', ')}\n`);
      process.exit(1);
    }
    process.stdout.write(`${ref} is exactly the plugin tree src/ builds\n`);
  } else {
    const at = args.indexOf('--push');
    if (args.some((a, i) => a !== '--push' && i !== at + 1) || (at >= 0 && !args[at + 1]))
      throw new Error('usage: node scripts/release-plugin.mjs [--push REMOTE] | --check [REF]');
    const r = await release({ push: at >= 0 ? args[at + 1] : undefined });
    process.stdout.write(
      `${r.changed ? 'published' : 'already published'} ${RELEASE_BRANCH} ${r.commit.slice(0, 12)} (tree ${r.tree.slice(0, 12)}, ${r.tag}), built from ${r.source.slice(0, 12)}${at >= 0 ? `; pushed to ${args[at + 1]}` : ''}\n`,
    );
  }
}
