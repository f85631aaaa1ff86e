// Help that teaches: examples and exit codes under every command's --help, "did you mean" for a
// mistyped command, and follow-up commands that keep the flags the user gave. Pure but for commander.
import type { Command } from 'commander';
import { EXIT, EXIT_CODES, type ExitName } from './contracts/exit-codes.js';

export interface CommandHelp {
  /** [command line, what it does] */
  examples: [string, string][];
  /**
   * [exit code by name (contracts/exit-codes.ts), when it happens for this command]; without the
   * second part, the table's own meaning of the code. Every code the command can return.
   */
  exitCodes: ([ExitName, string] | [ExitName])[];
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
  const codes = help.exitCodes.map(([name, when]) => `  ${EXIT[name]}  ${when ?? EXIT_CODES[name].means}`).join('\n');
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

/** Whether a command line `dispatch-watchdog <words…>` takes `flag`, asked of commander. */
export type TakesFlag = (words: readonly string[], flag: string) => boolean;

/** The commander program's answer to "does this command take this flag" (the deepest command the words name). */
export function takesFlagOf(program: Command): TakesFlag {
  return (words, flag) => {
    let cmd = program;
    for (const w of words) {
      const sub = cmd.commands.find((c) => c.name() === w);
      // The program takes no arguments: a first word that is no command (help, a typo) takes nothing.
      if (!sub && cmd === program) return false;
      if (!sub) break;
      cmd = sub;
    }
    return cmd.options.some((o) => o.long === flag);
  };
}

/**
 * Every `dispatch-watchdog …` command quoted in backticks in `text` gets the user's location
 * flags it lacks, so a suggested command runs against the same state dir and config; only where
 * the command takes the flag (`takes`, from commander).
 */
export function keepUserFlags(text: string, flags: readonly string[], takes: TakesFlag): string {
  if (flags.length === 0) return text;
  return text.replace(/`(dispatch-watchdog\b[^`]*)`/g, (_, cmd: string) => {
    let line = cmd;
    // The command's words: up to its first flag (`dispatch-watchdog hook install --user` → hook install).
    const words = line.split(/\s+/).slice(1);
    const firstFlag = words.findIndex((w) => w.startsWith('-'));
    const leading = firstFlag === -1 ? words : words.slice(0, firstFlag);
    for (let i = 0; i < flags.length; i += 2) {
      const flag = flags[i]!;
      if (takes(leading, flag) && !line.includes(`${flag} `)) line += ` ${flag} ${quote(flags[i + 1]!)}`;
    }
    return `\`${line}\``;
  });
}
