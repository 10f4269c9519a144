import { describe, expect, it } from 'vitest';
import { createDrafter, createSectioner, createTranscriptionProvider } from '../../src/providers/index.ts';

const endpoint = { baseUrl: 'http://127.0.0.1:9/v1', apiKey: 'sk-factory-secret-42', model: 'm', timeoutMs: 1_000 };

describe('provider factories', () => {
  it('choose the transcriber by name', () => {
    expect(createTranscriptionProvider({ name: 'sandbox' }).name).toBe('sandbox');
    expect(createTranscriptionProvider({ name: 'openai', ...endpoint, language: 'pt' }).name).toBe('openai');
  });

  it('choose the sectioner by name', () => {
    expect(createSectioner({ name: 'rules' }).name).toBe('rules');
    expect(createSectioner({ name: 'openai', ...endpoint }).name).toBe('openai');
  });

  it('make the openai drafter, refusing bad options without echoing the key', () => {
    expect(createDrafter({ name: 'openai', ...endpoint }).name).toBe('openai');
    const badAttempts = () => createDrafter({ name: 'openai', ...endpoint, attempts: 0 });
    expect(badAttempts).toThrow(/Invalid drafter options: attempts/);
    expect(badAttempts).not.toThrow(endpoint.apiKey);
    expect(() => createDrafter({ name: 'openai', ...endpoint, baseUrl: 'file:///etc' })).toThrow(/baseUrl/);
  });

  it('reject unknown names and incomplete openai options without echoing the key', () => {
    expect(() => createTranscriptionProvider({ name: 'whisper' } as never)).toThrow(/Invalid transcription provider options/);
    expect(() => createSectioner({ name: 'gpt' } as never)).toThrow(/Invalid sectioner options/);
    const missingModel = () => createSectioner({ name: 'openai', ...endpoint, model: '' });
    expect(missingModel).toThrow(/model/);
    expect(() => createTranscriptionProvider({ name: 'openai', ...endpoint, baseUrl: 'ftp://x/v1' })).toThrow(/baseUrl/);
    const badTimeout = () => createTranscriptionProvider({ name: 'openai', ...endpoint, timeoutMs: -1 });
    expect(badTimeout).toThrow(/timeoutMs/);
    expect(badTimeout).not.toThrow(endpoint.apiKey);
  });
});
