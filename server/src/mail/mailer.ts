/**
 * @module The API server's outgoing mail (notifications such as the low-balance alert), a
 * port with two adapters:
 *
 * - `devMailboxMailer`: embedded mode. The mail lands in the local services' dev mailbox
 *   (the same one magic links land in): http://localhost:54321/_dev/mailbox.json?to=<email>.
 * - `logMailer`: everywhere else, until an SMTP or provider adapter is added (the server has
 *   no mail library as a dependency yet). It logs that a mail was due, to whom and its
 *   subject, never its body. Magic links outside embedded mode come from hosted Supabase's
 *   own mailer and do not go through here.
 *
 * Mail is sent from jobs (the auto top-up sweep), not from a request: callers treat a
 * failure as "try again later".
 */
import type { DevMailbox } from '@aim/supabase';
import type { Logger } from '../logger.ts';

export interface OutgoingMail {
  to: string;
  subject: string;
  text: string;
}

export interface Mailer {
  readonly kind: 'dev-mailbox' | 'log';
  send(mail: OutgoingMail): Promise<void>;
}

export function devMailboxMailer(mailbox: Pick<DevMailbox, 'send'>): Mailer {
  return {
    kind: 'dev-mailbox',
    async send(mail) {
      mailbox.send({ to: mail.to, subject: mail.subject, text: mail.text });
    },
  };
}

export function logMailer(log: Logger): Mailer {
  return {
    kind: 'log',
    async send(mail) {
      log.info('mail not sent: no mailer configured (log-only adapter)', { to_domain: mail.to.split('@')[1] ?? '', subject: mail.subject });
    },
  };
}
