import { randomBytes } from 'node:crypto';
import type { AppInstance } from '../../src/app.ts';
import { OPERATOR } from '../../src/flow/callers.ts';
import { crmKeysService } from '../../src/flow/keys/keys.service.ts';
import { CRM_SCOPES } from '../../src/flow/keys/scopes.ts';
import { workspacesService } from '../../src/flow/operator/workspaces.service.ts';
import { usersService } from '../../src/flow/users/users.service.ts';
import type { TestApp } from './app.ts';

// Factories for CRM access tests: data goes in through the real services, never through fixtures.

/** The cheapest scrypt cost the app accepts, so logins in tests take milliseconds. */
export const CRM_TEST_ENV = { PASSWORD_SCRYPT_LOG_N: '14' };

const unique = () => randomBytes(4).toString('hex');

export interface WorkspaceFixture {
  workspaceId: string;
  admin: { id: string; email: string; password: string };
}

export async function makeWorkspace(t: TestApp, options: { billing?: 'active' | 'suspended' } = {}): Promise<WorkspaceFixture> {
  const db = t.db.database.db;
  const email = `admin-${unique()}@clinic.example`;
  const password = `pw-${unique()}-${unique()}`;
  const workspaces = workspacesService({ db, logN: t.config.PASSWORD_SCRYPT_LOG_N });
  const { workspace, adminUserId } = await workspaces.createWorkspace(OPERATOR, {
    name: `Workspace ${unique()}`,
    adminEmail: email,
    adminPassword: password,
  });
  if (options.billing === 'suspended') await workspaces.changeWorkspace(OPERATOR, workspace.id, { billingStatus: 'suspended' });
  return { workspaceId: workspace.id, admin: { id: adminUserId, email, password } };
}

export async function makeUser(t: TestApp, workspaceId: string, role: 'administrator' | 'agent') {
  const email = `${role}-${unique()}@clinic.example`;
  const password = `pw-${unique()}-${unique()}`;
  const users = usersService({ db: t.db.database.db, logN: t.config.PASSWORD_SCRYPT_LOG_N });
  const user = await users.createUser(OPERATOR, { workspaceId, email, password, role });
  return { id: user.id, email, password };
}

export async function makeKey(t: TestApp, workspaceId: string, scopes: readonly string[] = CRM_SCOPES) {
  const { key, token } = await crmKeysService({ db: t.db.database.db }).issueApiKey(OPERATOR, workspaceId, {
    name: `key ${unique()}`,
    scopes,
  });
  return { id: key.id, token };
}

/** Logs in through the API and returns the `Cookie` header value to send afterwards. */
export async function loginCookie(app: AppInstance, email: string, password: string): Promise<string> {
  const response = await app.inject({ method: 'POST', url: '/flow/v1/api/auth/login', payload: { email, password } });
  if (response.statusCode !== 200) throw new Error(`login failed: ${response.statusCode} ${response.body}`);
  const setCookie = String(response.headers['set-cookie']);
  return setCookie.split(';')[0]!;
}
