import { z } from 'zod';
import { UuidSchema } from '../../platform/http/schemas.ts';

/** The `{workspace_id}` path parameter of every workspace-scoped CRM route. */
export const WorkspaceParams = z.object({ workspace_id: UuidSchema });
