// Help that teaches: examples and exit codes under every command's --help, "did you mean" for a
// mistyped command, and follow-up commands that keep the flags the user gave. Pure but for commander.
import type { Command } from 'commander';

export interface CommandHelp {
  /** [command line, what it does] */
  examples: [string, string][];
  /** [exit code, when] */
  exitCodes: [number, string][];
}

/** The full name of a command as typed: `dispatch-watchdog status`. */
export function commandPath(cmd: Command): string {
  const names: string[] = [];
  for (let c: Command | null = cmd; c; c = c.parent) names.unshift(c.name());
  return names.join(' ');
}

/** Add examples and exit codes to a command's --help, and point its usage errors at that help. */
export function teach(cmd: Command, help: CommandHelp): Command {
  const examples = help.examples.map(([line, what]) => `  $ ${line}\n      ${what}`).join('\n');
  const codes = help.exitCodes.map(([code, when]) => `  ${code}  ${when}`).join('\n');
  cmd.addHelpText('after', `\nExamples:\n${examples}\n\nExit codes:\n${codes}\n`);
  cmd.showHelpAfterError(`(run ${commandPath(cmd)} --help for usage)`);
  return cmd;
}

export { didYouMean } from './core/did-you-mean.js';

/** The flags that say where things are (--state-dir, --config), as the user typed them. */
export function locationFlags(argv: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    for (const flag of ['--state-dir', '--config']) {
      if (a === flag && argv[i + 1] !== undefined) out.push(flag, argv[i + 1]!);
      else if (a.startsWith(`${flag}=`)) out.push(flag, a.slice(flag.length + 1));
    }
  }
  return out;
}

const quote = (s: string) => (/^[\w@%+=:,./-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`);

/**
 * Every `dispatch-watchdog …` command quoted in backticks in `text` gets the user's location
 * flags it lacks, so a suggested command runs against the same state dir and config.
 */
export function keepUserFlags(text: string, flags: readonly string[]): string {
  if (flags.length === 0) return text;
  return text.replace(/`(dispatch-watchdog\b[^`]*)`/g, (_, cmd: string) => {
    let line = cmd;
    const sub = /^dispatch-watchdog ([a-z][\w-]*)/.exec(line)?.[1];
    for (let i = 0; i < flags.length; i += 2) {
      const flag = flags[i]!;
      // Every command but demo takes --state-dir; only the watch command and recover read a config.
      const takes = flag === '--state-dir' ? sub !== 'demo' && sub !== 'help' : sub === undefined || sub === 'recover';
      if (takes && !line.includes(`${flag} `)) line += ` ${flag} ${quote(flags[i + 1]!)}`;
    }
    return `\`${line}\``;
  });
}
