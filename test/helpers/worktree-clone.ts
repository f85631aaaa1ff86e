// A clean clone of this working tree: every file git would keep (tracked, or new and not ignored,
// so no generated bundle/, plugin/ or dist/), committed as one commit of a fresh git repo, with
// the checkout's node_modules linked in (gitignored there too) so its scripts can build.
import { execFile } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { REPO_ROOT } from './cli.js';

const run = promisify(execFile);

/** An identity for commits in a scratch repo (the machine's git may have none). */
export const GIT_IDENTITY = { GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@example.com', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@example.com' };

/** `git ...args` in `cwd` with a scratch identity; its trimmed stdout. */
export async function gitIn(cwd: string, ...args: string[]): Promise<string> {
  const { stdout } = await run('git', args, { cwd, env: { ...process.env, ...GIT_IDENTITY }, maxBuffer: 64 * 1024 * 1024 });
  return stdout.trim();
}

/** Copy the working tree into `dest` (made), commit it there on `main`, link node_modules. */
export async function cloneWorkingTree(dest: string): Promise<void> {
  const { stdout } = await run('git', ['ls-files', '-co', '--exclude-standard', '-z'], { cwd: REPO_ROOT, maxBuffer: 64 * 1024 * 1024 });
  for (const f of stdout.split('\0').filter(Boolean)) {
    if (!existsSync(path.join(REPO_ROOT, f))) continue; // deleted in the working tree
    mkdirSync(path.dirname(path.join(dest, f)), { recursive: true });
    cpSync(path.join(REPO_ROOT, f), path.join(dest, f));
  }
  await gitIn(dest, 'init', '-q', '-b', 'main');
  await gitIn(dest, 'add', '-A');
  await gitIn(dest, 'commit', '-q', '-m', 'snapshot');
  symlinkSync(path.join(REPO_ROOT, 'node_modules'), path.join(dest, 'node_modules'));
}
