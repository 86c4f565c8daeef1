import 'reflect-metadata';
import { ADMIN_CREATE_USAGE, adminCreateCommand, CliIo, EXIT } from './admin-create.command';

const io: CliIo = {
  out: (line) => process.stdout.write(`${line}\n`),
  err: (line) => process.stderr.write(`${line}\n`),
};

/** `npm run cli -- <command> [options]`. */
async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  switch (command) {
    case 'admin:create':
      return adminCreateCommand(rest, process.env, io);
    case undefined:
    case 'help':
    case '--help':
      io.out(`Commands:\n  admin:create  create an admin user\n\n${ADMIN_CREATE_USAGE}`);
      return command === undefined ? EXIT.USAGE : EXIT.OK;
    default:
      io.err(`Unknown command: ${command}\n\n${ADMIN_CREATE_USAGE}`);
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
