import { z } from 'zod';
import { errorResponses, TimestampSchema, toTimestamp, UuidSchema } from '../../platform/http/schemas.ts';
import type { AppInstance } from '../../platform/http/types.ts';
import { WorkspaceParams } from '../http/params.ts';
import { sessionCaller } from '../request-context.ts';
import type { CrmUserRow } from './users.repo.ts';
import type { WorkspaceUsersService } from './workspace-users.service.ts';

const UserParams = WorkspaceParams.extend({ user_id: UuidSchema });

const CrmUser = z
  .object({
    id: UuidSchema,
    email: z.string(),
    role: z.enum(['administrator', 'agent']),
    disabled_at: TimestampSchema.nullable().describe('Set while the user is disabled: no login, no session'),
    created_at: TimestampSchema,
  })
  .meta({ id: 'CrmUser' });

const UserChangesBody = z.strictObject({
  disabled: z.boolean().describe('true ends every session of the user at once and refuses their logins; false lets them log in again'),
});

function toUserBody(user: CrmUserRow) {
  return {
    id: user.id,
    email: user.email,
    role: user.role,
    disabled_at: user.disabledAt ? toTimestamp(user.disabledAt) : null,
    created_at: toTimestamp(user.createdAt),
  };
}

const tags = ['CRM users'];

/** `W/users`: workspace administrators list their users and disable or re-enable them. */
export async function userRoutes(app: AppInstance, { users }: { users: WorkspaceUsersService }) {
  const base = '/api/workspaces/:workspace_id/users';

  app.get(
    base,
    {
      config: { access: { crmSessionRole: 'administrator' } },
      schema: {
        operationId: 'listCrmUsers',
        summary: "List the workspace's users",
        description: 'Administrators only. Ordered by email.',
        tags,
        params: WorkspaceParams,
        response: { 200: z.object({ data: z.array(CrmUser), meta: z.object({ total: z.int() }) }), ...errorResponses(400, 401, 403) },
      },
    },
    async (request) => {
      const listed = await users.listUsers(sessionCaller(request), request.params.workspace_id);
      return { data: listed.map(toUserBody), meta: { total: listed.length } };
    },
  );

  app.patch(
    `${base}/:user_id`,
    {
      config: { access: { crmSessionRole: 'administrator' } },
      schema: {
        operationId: 'updateCrmUser',
        summary: 'Disable or re-enable a user',
        description:
          "Administrators only. Disabling ends all of the user's sessions before answering and refuses their logins (401, " +
          'as a wrong password); an administrator cannot disable themselves (400).',
        tags,
        params: UserParams,
        body: UserChangesBody,
        response: { 200: CrmUser, ...errorResponses(400, 401, 403, 404, 422) },
      },
    },
    async (request) => {
      const user = await users.changeUser(sessionCaller(request), request.params.workspace_id, request.params.user_id, request.body);
      return toUserBody(user);
    },
  );
}
