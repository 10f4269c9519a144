// Audio formats: the four vetflow accepts, told apart by their first bytes, their media types, and how
// long a file plays.

export type AudioFormat = 'mp3' | 'wav' | 'm4a' | 'aac';

/** The media type each format is sent (to a speech-to-text server) and served as. */
export const AUDIO_CONTENT_TYPES: Record<AudioFormat, string> = {
  mp3: 'audio/mpeg',
  wav: 'audio/wav',
  m4a: 'audio/mp4',
  aac: 'audio/aac',
};

export const ACCEPTED_FORMATS: readonly AudioFormat[] = ['mp3', 'wav', 'm4a', 'aac'];

const MP4_AUDIO_BRANDS = new Set(['M4A ', 'M4B ', 'mp41', 'mp42', 'isom', 'iso2', 'iso5', 'dash', '3gp4', '3gp5', 'MSNV']);

/**
 * The format of an upload, decided from its first bytes alone (never the name or declared type).
 * `received` names what it looks like otherwise, for the error details.
 */
export function sniffAudioFormat(head: Buffer): { format: AudioFormat } | { format: null; received: string } {
  const ascii = (start: number, end: number) => head.subarray(start, end).toString('latin1');
  if (head.length >= 12 && ascii(0, 4) === 'RIFF' && ascii(8, 12) === 'WAVE') return { format: 'wav' };
  if (head.length >= 12 && ascii(4, 8) === 'ftyp') {
    return MP4_AUDIO_BRANDS.has(ascii(8, 12)) ? { format: 'm4a' } : { format: null, received: `mp4 (${ascii(8, 12).trim()})` };
  }
  if (ascii(0, 3) === 'ID3') return { format: 'mp3' };
  const [b0, b1] = [head[0] ?? 0, head[1] ?? 0];
  if (b0 === 0xff && (b1 & 0xf6) === 0xf0) return { format: 'aac' }; // ADTS sync, layer 00
  if (b0 === 0xff && (b1 & 0xe0) === 0xe0 && (b1 & 0x06) !== 0) return { format: 'mp3' }; // MPEG audio frame
  if (ascii(0, 4) === 'OggS') return { format: null, received: 'ogg' };
  if (ascii(0, 4) === 'fLaC') return { format: null, received: 'flac' };
  if (head.subarray(0, 4).equals(Buffer.from([0x1a, 0x45, 0xdf, 0xa3]))) return { format: null, received: 'webm' };
  if (head.length === 0) return { format: null, received: 'empty' };
  const printable = [...head.subarray(0, 64)].every((byte) => byte === 9 || byte === 10 || byte === 13 || (byte >= 32 && byte < 127));
  return { format: null, received: printable ? 'text' : 'unknown' };
}

/**
 * The most seconds `bytes` of an audio file can play whatever its header says, or null where the
 * format sets no useful bound. MPEG audio's lowest bitrate is 8 kbps, so an MP3 plays at most a
 * second per 1000 bytes (one frame more for rounding): the duration probe (duration.ts) counts the
 * frames that are there, so this is a second guard on what sizes the note's chunk plan and quota.
 * WAV durations are read from the data present; an m4a's samples are checked when split.
 */
export function mostSecondsIn(format: AudioFormat, bytes: number): number | null {
  return format === 'mp3' ? bytes / 1000 + 0.2 : null;
}
