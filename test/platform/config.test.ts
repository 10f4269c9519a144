import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/platform/config.ts';

describe('configuration', () => {
  it('starts on embedded defaults with an empty environment', () => {
    const config = loadConfig({});
    expect(config).toMatchObject({
      PORT: 3000,
      DATA_DIR: './data',
      MIGRATE_ON_START: true,
      ROLE: 'all',
      TRANSCRIPTION_PROVIDER: 'sandbox',
      SECTIONING_PROVIDER: 'rules',
      WEBHOOK_ALLOW_PRIVATE_TARGETS: false,
      PUBLIC_BASE_URL: 'http://localhost:3000',
      TRUST_PROXY: false,
      AUDIO_MAX_BYTES: 104_857_600,
      DATABASE_CONNECT_TIMEOUT_MS: 3_000,
      DATABASE_STATEMENT_TIMEOUT_MS: 5_000,
      DATABASE_QUERY_TIMEOUT_MS: 6_000,
      DATABASE_IDLE_IN_TRANSACTION_TIMEOUT_MS: 10_000,
      SHUTDOWN_DRAIN_MS: 0,
      TRANSCRIPTION_MAX_REQUEST_BYTES: 26_000_000,
      TRANSCRIPTION_MAX_REQUEST_SECONDS: 1300,
      TRANSCRIPTION_CHUNK_CONCURRENCY: 6,
      TRANSCRIPTION_DIARIZE: false,
    });
    expect(config.DATABASE_URL).toBeUndefined();
    expect(Object.isFrozen(config)).toBe(true);
  });

  it('reads typed values', () => {
    const config = loadConfig({
      PORT: '8080',
      MIGRATE_ON_START: 'false',
      ROLE: 'worker',
      PUBLIC_BASE_URL: 'https://api.example.com/',
      TRUST_PROXY: '10.0.0.0/8, 127.0.0.1',
      DATABASE_URL: 'postgres://u:p@db:5432/vetflow',
    });
    expect(config).toMatchObject({
      PORT: 8080,
      MIGRATE_ON_START: false,
      ROLE: 'worker',
      PUBLIC_BASE_URL: 'https://api.example.com',
      TRUST_PROXY: ['10.0.0.0/8', '127.0.0.1'],
    });
    expect(loadConfig({ TRUST_PROXY: '2' }).TRUST_PROXY).toBe(2);
    expect(loadConfig({ TRUST_PROXY: 'true' }).TRUST_PROXY).toBe(true);
  });

  it.each([
    [{ PORT: 'eighty' }, 'PORT'],
    [{ PORT: '70000' }, 'PORT'],
    [{ ROLE: 'everything' }, 'ROLE'],
    [{ LOG_LEVEL: 'loud' }, 'LOG_LEVEL'],
    [{ MIGRATE_ON_START: 'maybe' }, 'MIGRATE_ON_START'],
    [{ TRUST_PROXY: 'the-proxy' }, 'TRUST_PROXY'],
    [{ TRANSCRIPTION_PROVIDER: 'openai' }, 'TRANSCRIPTION_BASE_URL'],
    [{ SECTIONING_PROVIDER: 'openai' }, 'SECTIONING_BASE_URL'],
    [{ DRAFTING_PROVIDER: 'openai' }, 'DRAFTING_BASE_URL'],
    [{ NOTE_STYLE: 'clinical' }, 'NOTE_STYLE'],
    [{ NOTE_STYLE: 'summary' }, 'NOTE_STYLE'],
    [{ PUBLIC_BASE_URL: 'not a url' }, 'PUBLIC_BASE_URL'],
    [{ DATABASE_STATEMENT_TIMEOUT_MS: '8000' }, 'DATABASE_QUERY_TIMEOUT_MS'],
    [{ DATABASE_CONNECT_TIMEOUT_MS: '0' }, 'DATABASE_CONNECT_TIMEOUT_MS'],
    [{ DATABASE_DIRECT_URL: 'postgres://u@db:5432/vetflow' }, 'DATABASE_DIRECT_URL'],
    [{ DATABASE_URL: 'postgres://u@pooler:6432/vetflow', DATABASE_DIRECT_URL: 'mysql://u@db/x' }, 'DATABASE_DIRECT_URL'],
    [{ TRANSCRIPTION_MAX_REQUEST_SECONDS: '10' }, 'TRANSCRIPTION_MAX_REQUEST_SECONDS'],
    [{ TRANSCRIPTION_CHUNK_CONCURRENCY: '0' }, 'TRANSCRIPTION_CHUNK_CONCURRENCY'],
  ])('refuses %o with one line naming %s', (env, variable) => {
    let error: unknown;
    try {
      loadConfig(env);
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const message = (error as ConfigError).message;
    expect(message).toMatch(new RegExp(`^Invalid configuration: ${variable}: `));
    expect(message).not.toContain('\n');
  });

  it('never echoes a rejected value, which may be a secret', () => {
    expect(() => loadConfig({ DATABASE_URL: 'mysql://admin:hunter2-secret@db/x' })).toThrow(/DATABASE_URL/);
    try {
      loadConfig({ DATABASE_URL: 'mysql://admin:hunter2-secret@db/x' });
    } catch (error) {
      expect((error as Error).message).not.toContain('hunter2');
    }
  });
});
