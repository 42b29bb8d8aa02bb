/**
 * Phoenix channel framing as realtime-js 2.119 speaks it (supabase-protocol.md §3.2):
 * vsn 2.0.0 sends `[join_ref, ref, topic, event, payload]` arrays, vsn 1.0.0 sends objects.
 */
export type Vsn = '1.0.0' | '2.0.0';

export interface PhxMessage {
  joinRef: string | null;
  ref: string | null;
  topic: string;
  event: string;
  payload: Record<string, unknown>;
}

export function decode(vsn: Vsn, text: string): PhxMessage | undefined {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (vsn === '2.0.0') {
    if (!Array.isArray(raw) || raw.length !== 5) return undefined;
    const [joinRef, ref, topic, event, payload] = raw as unknown[];
    return build(joinRef, ref, topic, event, payload);
  }
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) return undefined;
  const o = raw as Record<string, unknown>;
  return build(o.join_ref, o.ref, o.topic, o.event, o.payload);
}

function build(joinRef: unknown, ref: unknown, topic: unknown, event: unknown, payload: unknown): PhxMessage | undefined {
  if (typeof topic !== 'string' || typeof event !== 'string') return undefined;
  return {
    joinRef: joinRef == null ? null : String(joinRef),
    ref: ref == null ? null : String(ref),
    topic,
    event,
    payload: payload && typeof payload === 'object' && !Array.isArray(payload) ? (payload as Record<string, unknown>) : {},
  };
}

export function encode(vsn: Vsn, m: PhxMessage): string {
  if (vsn === '2.0.0') return JSON.stringify([m.joinRef, m.ref, m.topic, m.event, m.payload]);
  // Phoenix's V1 serializer leaves out absent refs (captured)
  const o: Record<string, unknown> = { topic: m.topic, event: m.event, payload: m.payload };
  if (m.ref != null) o.ref = m.ref;
  if (m.joinRef != null) o.join_ref = m.joinRef;
  return JSON.stringify(o);
}
