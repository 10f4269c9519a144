import { randomBytes } from 'node:crypto';
import { claimSetting, stampedValue, updateSetting } from '../platform/db/app-settings.repo.ts';
import type { Db } from '../platform/db/client.ts';
import { DEMO_CREDENTIALS_DAYS } from '../platform/demo-data.ts';
import type { CredentialBlock } from '../platform/first-run-credentials.ts';
import { OPERATOR } from './callers.ts';
import { workspacesService } from './operator/workspaces.service.ts';
import { setUserExpiry } from './users/users.repo.ts';
import { anyWorkspaceExists } from './workspaces/workspaces.repo.ts';

export interface DemoLogin {
  workspaceId: string;
  workspaceName: string;
  email: string;
  password: string;
}

const DONE_KEY = 'flow.demo_workspace';
export const DEMO_ADMIN_EMAIL = 'admin@demo-workspace.example';

/**
 * On the first start of an empty database (the embedded one, or with DEMO_DATA=true: main.ts asks
 * `demoDataWanted`): a demo workspace and its administrator, whose login (valid 30 days) is returned this once (the password is stored only as a hash). Afterwards, or when workspaces
 * already exist, null. The "done" mark is written in the same transaction, so concurrent first
 * starts create exactly one demo (the second waits on the mark's primary key, then sees it).
 */
export async function ensureDemoWorkspace(passwordLogN: number, db: Db): Promise<DemoLogin | null> {
  return db.transaction(async (tx) => {
    const marked = await claimSetting(DONE_KEY, stampedValue(), tx);
    if (!marked || (await anyWorkspaceExists(tx))) return null;

    const password = randomBytes(15).toString('base64url');
    // Bound to this transaction: the workspace and the "done" mark commit together.
    const { workspace, adminUserId } = await workspacesService({ db: tx, logN: passwordLogN }).createWorkspace(OPERATOR, {
      name: 'Demo workspace',
      adminEmail: DEMO_ADMIN_EMAIL,
      adminPassword: password,
    });
    // A demo login is for trying the API, not for keeping: it stops working after 30 days.
    await setUserExpiry(adminUserId, new Date(Date.now() + DEMO_CREDENTIALS_DAYS * 86_400_000), tx);
    await updateSetting(DONE_KEY, stampedValue({ workspace_id: workspace.id }), tx);
    return { workspaceId: workspace.id, workspaceName: workspace.name, email: DEMO_ADMIN_EMAIL, password };
  });
}

/** The demo login in the first-run credentials (platform/first-run-credentials.ts), never through the logger. */
export function demoLoginCredentials(login: DemoLogin, publicBaseUrl: string): CredentialBlock {
  return {
    title: `CRM API (${publicBaseUrl}/flow/v1): demo workspace administrator`,
    fields: [
      { label: 'workspace', value: `${login.workspaceName} (${login.workspaceId})` },
      { label: 'email', value: login.email },
      { label: 'password', value: login.password },
      { label: 'log in', value: `POST ${publicBaseUrl}/flow/v1/api/auth/login` },
    ],
  };
}
