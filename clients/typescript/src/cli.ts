#!/usr/bin/env node
/** The `joma` command of @joma/client: `joma listen` (see listen.ts). */
import { listen, LISTEN_USAGE, parseListenArgs } from './listen.js';

const USAGE = `Usage: joma <command>\n\nCommands:\n  listen   forward a mode's events to a URL on your machine\n\n${LISTEN_USAGE}`;

/** Runs `joma` with these arguments; resolves to the exit code once stopped. */
export async function main(
  argv: string[],
  env: Record<string, string | undefined> = process.env,
): Promise<number> {
  const [command, ...rest] = argv;
  if (command !== 'listen') {
    const help = command === undefined || command === 'help' || command === '--help';
    if (help) process.stdout.write(`${USAGE}\n`);
    else process.stderr.write(`Unknown command: ${command}\n\n${USAGE}\n`);
    return help ? 0 : 2;
  }
  const options = parseListenArgs(rest, env);
  if (typeof options === 'string') {
    const help = options === LISTEN_USAGE;
    (help ? process.stdout : process.stderr).write(`${options}\n`);
    return help ? 0 : 2;
  }
  const listener = await listen(options);
  process.stdout.write('Ready. Ctrl-C stops.\n');
  await new Promise<void>((r) => {
    process.once('SIGINT', r);
    process.once('SIGTERM', r);
  });
  await listener.stop();
  return 0;
}

if (typeof require !== 'undefined' && require.main === module) {
  main(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (err: unknown) => {
      process.stderr.write(`joma: ${err instanceof Error ? err.message : String(err)}\n`);
      process.exit(1);
    },
  );
}
