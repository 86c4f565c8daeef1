// `node scripts/mail-catcher.mjs`: an SMTP server for a laptop that keeps
// what Joma sends instead of delivering it (docs/notifications.md, "Walk: a
// real receipt leaves your laptop"). It listens on 127.0.0.1:1025
// (MAIL_CATCHER_HOST, MAIL_CATCHER_PORT), takes any sender, recipient and
// login, prints each message (envelope, subject, plain text) and saves it
// whole as an .eml file under .data/mail (MAIL_CATCHER_DIR), which a mail
// program opens with its HTML. Start Joma with SMTP_URL=smtp://127.0.0.1:1025.
// It runs on the dev dependencies the tests' SMTP sink uses (smtp-server,
// mailparser): nothing to install after `npm ci`.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

import mailparser from 'mailparser';
import smtpServer from 'smtp-server';

const host = process.env.MAIL_CATCHER_HOST || '127.0.0.1';
const port = Number(process.env.MAIL_CATCHER_PORT || 1025);
const dir = resolve(process.env.MAIL_CATCHER_DIR || join('.data', 'mail'));
mkdirSync(dir, { recursive: true });

let caught = 0;
const server = new smtpServer.SMTPServer({
  authOptional: true,
  allowInsecureAuth: true,
  disabledCommands: ['STARTTLS'],
  logger: false,
  onAuth: (auth, _session, done) => done(null, { user: auth.username }),
  onData(stream, session, done) {
    const chunks = [];
    stream.on('data', (chunk) => chunks.push(chunk));
    stream.on('error', done);
    stream.on('end', () => {
      const raw = Buffer.concat(chunks);
      caught += 1;
      const file = join(dir, `${new Date().toISOString().replace(/[:.]/g, '-')}-${caught}.eml`);
      writeFileSync(file, raw);
      mailparser.simpleParser(raw).then(
        (mail) => {
          const to = session.envelope.rcptTo.map((r) => r.address).join(', ');
          process.stdout.write(
            [
              `--- mail ${caught}: ${mail.from?.text ?? session.envelope.mailFrom?.address} -> ${to}`,
              `Subject: ${mail.subject ?? ''}`,
              '',
              (mail.text ?? '').trim(),
              '',
              `(saved as ${file}${mail.html ? '; open it for the HTML' : ''})`,
              '',
            ].join('\n'),
          );
          done();
        },
        (err) => {
          process.stdout.write(
            `--- mail ${caught}: could not be read (${err.message}); saved as ${file}\n`,
          );
          done();
        },
      );
    });
  },
});
server.on('error', (err) => {
  process.stderr.write(`mail catcher: ${err.message}\n`);
  process.exit(1);
});
server.listen(port, host, () => {
  process.stdout.write(
    `Catching mail on smtp://${host}:${port} (start Joma with SMTP_URL=smtp://${host}:${port}); Ctrl-C stops.\n`,
  );
});
