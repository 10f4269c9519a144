import { createHash, randomBytes } from 'node:crypto';
import { bindService } from '../../platform/bind-service.ts';
import type { Config } from '../../platform/config.ts';
import type { Db } from '../../platform/db/client.ts';
import { AppError } from '../../platform/errors.ts';
import type { CrmUserCaller, SessionView } from '../callers.ts';
import { dummyPasswordHash, verifyPassword } from '../users/password.ts';
import { deleteSessionsOfUser, findUserByEmail } from '../users/users.repo.ts';
import { normaliseEmail } from '../users/users.service.ts';
import { type LoginAttempts, type LoginAttemptsConfig, loginAttempts } from './login-attempts.ts';
import { deleteSession, findLiveSession, insertSession, touchSession } from './sessions.repo.ts';

export type SessionConfig = Pick<Config, 'CRM_SESSION_TTL_MINUTES' | 'CRM_SESSION_IDLE_MINUTES' | 'PASSWORD_SCRYPT_LOG_N'> &
  LoginAttemptsConfig;

export interface SessionDeps {
  db: Db;
  config: SessionConfig;
}

// One message whatever was wrong, so a login never tells whether an email has an account.
const BAD_CREDENTIALS = 'Invalid email or password';

function hashSessionToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

/**
 * Checks an email and password (counted by the brute-force guard first) and opens a session.
 * Returns the cookie value, which exists nowhere else: only its SHA-256 is stored.
 */
async function login(
  { db, config, attempts }: SessionDeps & { attempts: LoginAttempts },
  input: { email: string; password: string; ip: string },
): Promise<{ token: string; session: SessionView }> {
  const email = normaliseEmail(input.email);
  // Counted (and refused when over a limit) before the password is looked at: see login-attempts.ts.
  const user = await attempts.check(input.ip, email, async () => {
    const user = await findUserByEmail(email, db);
    // Unknown emails still pay for one scrypt, so timing does not reveal them either.
    const hash = user?.passwordHash ?? (await dummyPasswordHash(config.PASSWORD_SCRYPT_LOG_N));
    const valid = await verifyPassword(input.password, hash);
    // A disabled or expired user's right password opens nothing, and answers as a wrong one would.
    const usable = user && !user.disabledAt && !(user.expiresAt && user.expiresAt.getTime() <= Date.now());
    return usable && valid ? user : undefined;
  });
  if (!user) throw new AppError('INVALID_CREDENTIALS', BAD_CREDENTIALS);
  const token = randomBytes(32).toString('base64url');
  const row = await insertSession(user.id, hashSessionToken(token), config.CRM_SESSION_TTL_MINUTES, db);
  const session = await findLiveSession(row.tokenHash, config.CRM_SESSION_IDLE_MINUTES, db);
  if (!session) throw new Error('the new session could not be read back');
  return { token, session: toView(session) };
}

// A session's last use is written at most this often: a write per request would cost more than the
// lookup, and the idle timeout is counted in minutes.
const TOUCH_INTERVAL_MS = 60_000;

/**
 * The session behind a cookie value, or undefined when it is unknown, expired, idle for
 * `CRM_SESSION_IDLE_MINUTES`, logged out or its user disabled.
 */
async function resolveSession({ db, config }: SessionDeps, token: string): Promise<SessionView | undefined> {
  const session = await findLiveSession(hashSessionToken(token), config.CRM_SESSION_IDLE_MINUTES, db);
  if (!session) return undefined;
  if (Date.now() - session.lastSeenAt.getTime() >= TOUCH_INTERVAL_MS) await touchSession(session.sessionId, db);
  return toView(session);
}

async function logout({ db }: SessionDeps, token: string): Promise<void> {
  await deleteSession(hashSessionToken(token), db);
}

/** Ends every session of the caller, this one included (a lost laptop, a shared computer). */
async function logoutEverywhere({ db }: SessionDeps, caller: CrmUserCaller): Promise<void> {
  await deleteSessionsOfUser(caller.userId, db);
}

function toView(row: NonNullable<Awaited<ReturnType<typeof findLiveSession>>>): SessionView {
  return {
    caller: { kind: 'user', userId: row.userId, workspaceId: row.workspaceId, role: row.role },
    email: row.email,
    workspaceName: row.workspaceName,
    expiresAt: row.expiresAt,
  };
}

/** Logins, logouts and the session behind a cookie, bound to the database and settings once. */
export function sessionsService(deps: SessionDeps) {
  return bindService({ ...deps, attempts: loginAttempts(deps.db, deps.config) }, { login, logout, logoutEverywhere, resolveSession });
}

export type SessionsService = ReturnType<typeof sessionsService>;
