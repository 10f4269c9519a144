import Fastify from 'fastify';
import pg from 'pg';

// The read baseline: the least a Fastify route can do to serve one note, one primary-key SELECT
// through a pg Pool of the same size as vetflow's (DATABASE_POOL_MAX default 10), as a named
// prepared statement, the row sent as JSON. Run as its own process, on the same database.
// Usage: node bench/bare-read-server.ts <databaseUrl> <poolMax>

const [databaseUrl, poolMax] = [process.argv[2]!, Number(process.argv[3] ?? 10)];
const pool = new pg.Pool({ connectionString: databaseUrl, max: poolMax, application_name: 'vetflow-bench-bare' });
pool.on('error', () => {});
const app = Fastify({ logger: false });

app.get<{ Params: { id: string } }>('/notes/:id', async (request, reply) => {
  const { rows } = await pool.query({ name: 'bare_note_by_id', text: 'SELECT * FROM notes WHERE id = $1', values: [request.params.id] });
  if (rows.length === 0) return reply.code(404).send({ error: 'not found' });
  return rows[0];
});

const address = await app.listen({ port: 0, host: '127.0.0.1' });
process.stdout.write(`listening ${address}\n`);
process.on('SIGTERM', () => {
  app
    .close()
    .then(() => pool.end())
    .then(() => process.exit(0));
});
