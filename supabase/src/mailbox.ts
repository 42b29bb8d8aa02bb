/**
 * The dev mailbox (embedded mode has no SMTP): every email the local auth service sends is
 * kept here, printed as one console line, shown on a page and served as JSON for scripts.
 * Production uses hosted Supabase's mailer instead.
 */
export interface MailMessage {
  id: number;
  to: string;
  subject: string;
  text: string;
  /** The magic link, when the mail carries one. */
  link?: string;
  /** The 6-digit one-time code, when the mail carries one. */
  otp?: string;
  createdAt: string;
}

export class DevMailbox {
  private messages: MailMessage[] = [];
  private nextId = 1;

  constructor(private readonly opts: { log?: (line: string) => void; max?: number } = {}) {}

  send(msg: Omit<MailMessage, 'id' | 'createdAt'>): MailMessage {
    const full: MailMessage = { ...msg, id: this.nextId++, createdAt: new Date().toISOString() };
    this.messages.push(full);
    const max = this.opts.max ?? 500;
    if (this.messages.length > max) this.messages.splice(0, this.messages.length - max);
    this.opts.log?.(`[mailbox] to=${full.to} subject="${full.subject}"${full.link ? ` link=${full.link}` : ''}`);
    return full;
  }

  /** Newest first; optionally only mail to one address (case-insensitive). */
  list(to?: string): MailMessage[] {
    const all = to ? this.messages.filter((m) => m.to.toLowerCase() === to.toLowerCase()) : this.messages;
    return [...all].reverse();
  }

  latest(to: string): MailMessage | undefined {
    return this.list(to)[0];
  }
}
