import { describe, expect, it } from 'vitest';
import { DrizzleQueryError } from '../../src/platform/db/drizzle.ts';
import { isDatabaseUnavailable } from '../../src/platform/db/unavailable.ts';
import { AppError } from '../../src/platform/errors.ts';
import { serializeError, statementName } from '../../src/platform/log-errors.ts';
import { ProviderError } from '../../src/providers/provider-error.ts';

const withCode = (message: string, code: string) => Object.assign(new Error(message), { code });
const postgresError = (code: string, extra: Record<string, unknown> = {}) =>
  Object.assign(new Error(`postgres says ${code}`), { code, severity: 'ERROR', ...extra });

describe('isDatabaseUnavailable', () => {
  it.each([
    ['a refused connection', withCode('connect ECONNREFUSED 127.0.0.1:5432', 'ECONNREFUSED')],
    [
      'both addresses of localhost refusing',
      Object.assign(new AggregateError([withCode('a', 'ECONNREFUSED'), withCode('b', 'ECONNREFUSED')]), { code: undefined }),
    ],
    ['the pool giving up on connecting', new Error('timeout exceeded when trying to connect')],
    ['a connection that died', new Error('Connection terminated unexpectedly')],
    ['a black-holed query', new Error('Query read timeout')],
    ['a server shutting down, through drizzle', new DrizzleQueryError('select 1', [], postgresError('57P01'))],
    ['a statement timeout', postgresError('57014')],
    ['a connection exception class', postgresError('08006')],
    ['a plain copy re-emitted by pg-boss', { message: 'connect ECONNREFUSED', code: 'ECONNREFUSED', stack: '' }],
  ])('is true for %s', (_label, error) => {
    expect(isDatabaseUnavailable(error)).toBe(true);
  });

  it.each([
    ['a unique violation', new DrizzleQueryError('insert into "x"', ['a'], postgresError('23505'))],
    ['a bad value', postgresError('22P02')],
    ['an AppError', new AppError('NOTE_NOT_FOUND', 'Note not found')],
    [
      'a provider error quoting the same words',
      new ProviderError('TRANSCRIPTION_UNAVAILABLE', 'Could not reach the server: Connection terminated', { retryable: true }),
    ],
    ['a provider network error in a cause', new TypeError('fetch failed', { cause: withCode('x', 'ECONNREFUSED') })],
    ['nothing', undefined],
  ])('is false for %s', (_label, error) => {
    expect(isDatabaseUnavailable(error)).toBe(false);
  });
});

describe('failed queries in the log', () => {
  it('name the statement and carry the SQLSTATE, never parameters, SQL text, message or detail', () => {
    const cause = postgresError('23505', {
      detail: 'Key (email)=(ana.canary@example.com) already exists.',
      constraint: 'crm_users_email_unique',
      table: 'crm_users',
    });
    const error = new DrizzleQueryError(
      'insert into "crm_users" ("email", "name") values ($1, $2)',
      ['ana.canary@example.com', 'Ana Canary'],
      cause,
    );
    const serialized = serializeError(error);
    const text = JSON.stringify(serialized);
    expect(serialized).toMatchObject({
      type: 'DatabaseQueryError',
      statement: 'insert into "crm_users"',
      cause: { type: 'DatabaseError', code: '23505', constraint: 'crm_users_email_unique', table: 'crm_users' },
    });
    expect(text).not.toContain('canary');
    expect(text).not.toContain('values ($1');
  });

  it('keep message and stack of other errors, and look through their causes', () => {
    const error = new Error('outer failure', {
      cause: new DrizzleQueryError('select * from "notes" where name = $1', ['Thor Canary'], postgresError('22P02')),
    });
    const serialized = serializeError(error);
    expect(serialized).toMatchObject({ type: 'Error', message: 'outer failure', cause: { statement: 'select from "notes"' } });
    expect(JSON.stringify(serialized)).not.toContain('Canary');
  });

  it.each([
    ['select "id", "name" from "notes" where "notes"."id" = $1', 'select from "notes"'],
    ['update "contacts" set "name" = $1', 'update "contacts"'],
    ['delete from "contact_audit_logs" where id in (select ...)', 'delete from "contact_audit_logs"'],
    ['select "vetflow_upsert_contact"($1, $2)', 'select vetflow_upsert_contact()'],
    ['begin', 'begin'],
  ])('statement name of %s is %s', (query, name) => {
    expect(statementName(query)).toBe(name);
  });
});
