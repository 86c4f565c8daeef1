import 'reflect-metadata';

import { ADMIN_CREATE_USAGE, adminCreateCommand, CliIo, EXIT } from './admin-create.command';
import {
  ADMIN_SET_PASSWORD_USAGE,
  adminSetPasswordCommand,
  CliInput,
} from './admin-set-password.command';

const io: CliIo & CliInput = {
  out: (line) => process.stdout.write(`${line}\n`),
  err: (line) => process.stderr.write(`${line}\n`),
  readStdin: async () => {
    if (process.stdin.isTTY)
      process.stderr.write('New password (input is not hidden; prefer a pipe): ');
    let data = '';
    for await (const chunk of process.stdin) data += String(chunk);
    return data;
  },
};
const USAGE = `Commands:\n  admin:create        create an admin user\n  admin:set-password  set an admin user's password\n\n${ADMIN_CREATE_USAGE}\n\n${ADMIN_SET_PASSWORD_USAGE}`;

/** `npm run cli -- <command> [options]`. */
async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  switch (command) {
    case 'admin:create':
      return adminCreateCommand(rest, process.env, io);
    case 'admin:set-password':
      return adminSetPasswordCommand(rest, process.env, io);
    case undefined:
    case 'help':
    case '--help':
      io.out(USAGE);
      return command === undefined ? EXIT.USAGE : EXIT.OK;
    default:
      io.err(`Unknown command: ${command}\n\n${USAGE}`);
      return EXIT.USAGE;
  }
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err: unknown) => {
    io.err(`cli failed: ${err instanceof Error ? err.message : String(err)}`);
    process.exit(EXIT.FAILED);
  },
);
