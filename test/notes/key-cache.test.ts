import { afterAll, describe, expect, it } from 'vitest';
import { KeyAuthenticator } from '../../src/notes/auth/key-authenticator.ts';
import { eq, sql } from '../../src/platform/db/drizzle.ts';
import { notesApiKeys } from '../../src/platform/db/schema/index.ts';
import { createTestDatabase } from '../helpers/database.ts';
import { createClinicWithKeys } from '../helpers/notes.ts';

// The Notes key lookup cache against a flood of keys nobody was given (the brute-force guard that
// counts and blocks them per address: test/flow/brute-force.test.ts).

const test = await createTestDatabase();
afterAll(() => test.drop());
const clinic = await createClinicWithKeys(test.database);
const db = test.database.db;
const randomKey = () => `vnk_${[...crypto.getRandomValues(new Uint8Array(16))].map((b) => b.toString(16).padStart(2, '0')).join('')}`;

describe('the Notes key cache', () => {
  it('keeps known keys cached however many unknown ones are tried', async () => {
    // Room for two entries, cached for a minute: whatever stays cached is not read again.
    const authenticator = new KeyAuthenticator(db, 60_000, 2);
    expect((await authenticator.authenticate(clinic.admin)).keyId).toBe(clinic.adminId);
    for (let i = 0; i < 10; i++) await expect(authenticator.authenticate(randomKey())).rejects.toMatchObject({ code: 'INVALID_API_KEY' });
    // The key's row changes behind the cache's back: a cached key is answered from the cache (its
    // old, open-ended expiry), an evicted one would be read again and refused.
    await db.update(notesApiKeys).set({ expiresAt: sql`now() - interval '1 minute'` }).where(eq(notesApiKeys.id, clinic.adminId));
    expect((await authenticator.authenticate(clinic.admin)).keyId).toBe(clinic.adminId);
  });

  it('still refuses a repeated unknown key, and forgets it with the rest', async () => {
    const authenticator = new KeyAuthenticator(db, 60_000, 2);
    const unknown = randomKey();
    await expect(authenticator.authenticate(unknown)).rejects.toMatchObject({ code: 'INVALID_API_KEY' });
    await expect(authenticator.authenticate(unknown)).rejects.toMatchObject({ code: 'INVALID_API_KEY' });
    authenticator.forget();
    await expect(authenticator.authenticate(unknown)).rejects.toMatchObject({ code: 'INVALID_API_KEY' });
  });
});
