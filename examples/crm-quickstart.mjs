#!/usr/bin/env node
// CRM integration API quickstart, as an ERP uses it: get a CRM key, upsert a contact with its phone
// in every Brazilian format the API accepts, upsert a batch, follow the contact change feed to its
// end, make the contact's satisfaction survey triggerable (five CRM calls) and trigger it.
// Node.js 24, built-ins only (fetch): no install needed.
//
//   VETFLOW_CRM_EMAIL=admin@... VETFLOW_CRM_PASSWORD=... node examples/crm-quickstart.mjs [--url http://localhost:3000]
//
// VETFLOW_CRM_EMAIL / VETFLOW_CRM_PASSWORD (or --email / --password): a workspace administrator's
// login (the demo workspace's login a first start gives, or one from `npm run cli -- workspace
// create`). The login issues the ERP's key and runs the CRM-side survey setup. VETFLOW_CRM_TOKEN
// (or --token): an existing `crm_live_...` key of that workspace to use instead of issuing one.
// VETFLOW_URL (or --url): the server, default http://localhost:3000. --cursor: where a previous
// run left the change feed (it printed it), default the start; --page-size: changes per page (100).
// Exits 0 when every step worked, 1 with the server's error otherwise.

import { randomInt } from 'node:crypto';
import { parseArgs } from 'node:util';

const { values: args } = parseArgs({
  options: {
    url: { type: 'string' },
    email: { type: 'string' },
    password: { type: 'string' },
    token: { type: 'string' },
    cursor: { type: 'string' },
    'page-size': { type: 'string', default: '100' },
  },
});
const baseUrl = (args.url ?? process.env.VETFLOW_URL ?? 'http://localhost:3000').replace(/\/+$/, '');
const email = args.email ?? process.env.VETFLOW_CRM_EMAIL;
const password = args.password ?? process.env.VETFLOW_CRM_PASSWORD;
let token = args.token ?? process.env.VETFLOW_CRM_TOKEN;
const api = `${baseUrl}/flow/v1`;

if (!email || !password) {
  console.error('Set VETFLOW_CRM_EMAIL and VETFLOW_CRM_PASSWORD (or pass --email and --password) to a workspace administrator login.');
  process.exit(1);
}

/** One JSON request; the status and parsed answer, or the error the server answered thrown. */
async function call(method, url, { json, headers = {} } = {}) {
  const response = await fetch(url, {
    method,
    headers: { ...headers, ...(json === undefined ? {} : { 'content-type': 'application/json' }) },
    body: json === undefined ? undefined : JSON.stringify(json),
  });
  const text = await response.text();
  const body = text ? JSON.parse(text) : null;
  if (!response.ok) throw new Error(`${method} ${url} → ${response.status} ${body?.code ?? ''}: ${body?.message ?? text}`);
  return { status: response.status, body, headers: response.headers };
}

const step = (name, text) => console.log(`${name}: ${text}`);

async function main() {
  step('server', baseUrl);

  // 1. Log in to the CRM (an administrator's session cookie) and get the ERP's key.
  const login = await call('POST', `${api}/api/auth/login`, { json: { email, password } });
  const session = { cookie: login.headers.get('set-cookie').split(';')[0] };
  const workspaceId = login.body.workspace.id;
  step('login', `${login.body.user.email} (${login.body.user.role}) in "${login.body.workspace.name}" ${workspaceId}`);
  const crm = `${api}/api/workspaces/${workspaceId}`;
  if (token) {
    step('key', `using the key given (${token.slice(0, 12)}…)`);
  } else {
    const scopes = ['contacts:write', 'contacts:read', 'contacts:delete', 'satisfaction:write'];
    const issued = (
      await call('POST', `${crm}/api-keys`, { headers: session, json: { name: `quickstart ${new Date().toISOString()}`, scopes } })
    ).body;
    token = issued.token;
    step('key', `issued ${issued.prefix}… with ${issued.scopes.join(', ')} (the token is shown once: keep it in the ERP's secrets)`);
  }
  const erpHeaders = { authorization: `Bearer ${token}` };
  const me = (await call('GET', `${api}/external/me`, { headers: erpHeaders })).body;
  if (me.workspace_id !== workspaceId) throw new Error(`the key belongs to workspace ${me.workspace_id}, not ${workspaceId}`);
  const erp = `${api}/external/workspaces/${workspaceId}`;
  const put = (contact) => call('PUT', `${erp}/contacts`, { headers: erpHeaders, json: contact });

  // 2. One contact, then the same phone in every Brazilian format the API accepts: each is
  //    normalised to E.164 and finds the same contact (matched_by phone). A 10-digit mobile
  //    without the ninth digit (written before 2016) gets it added.
  const run = String(randomInt(1_000_000)).padStart(6, '0');
  const [a, b] = [`${randomInt(6, 10)}${randomInt(100, 1000)}`, String(randomInt(10_000)).padStart(4, '0')];
  const mobile = { ddd: '11', old: `${a}-${b}`, now: `9${a}-${b}` };
  const created = await put({
    external_id: `QS-${run}`,
    name: 'Maria Oliveira',
    phone: `(${mobile.ddd}) ${mobile.now}`,
    email: 'maria@example.com',
  });
  const contactId = created.body.contact.id;
  step(
    'upsert',
    `(${mobile.ddd}) ${mobile.now} → ${created.status} ${created.body.action}, contact ${contactId}, phone ${created.body.contact.phone}`,
  );
  const digits = `${mobile.ddd}${mobile.now.replace('-', '')}`;
  const formats = [
    `+55${digits}`, // E.164
    `+55 (${mobile.ddd}) ${mobile.now}`, // international, formatted
    `55 ${mobile.ddd} ${mobile.now.replace('-', ' ')}`, // country code without +
    `${mobile.ddd} ${mobile.now}`, // national
    digits, // national, digits only
    `0 ${mobile.ddd} ${mobile.now}`, // with the trunk prefix 0
    `0 21 ${mobile.ddd} ${mobile.now}`, // with a long-distance carrier code (0 + carrier + DDD)
    `00 21 55 ${mobile.ddd} ${mobile.now}`, // international call prefix with carrier code
    `${mobile.ddd}.${mobile.now.replace('-', '.')}`, // dots
    `(${mobile.ddd}) ${mobile.old}`, // old 8-digit mobile: the ninth digit is added
  ];
  for (const phone of formats) {
    const { status, body } = await put({ phone });
    if (body.contact.id !== contactId) throw new Error(`${phone} found contact ${body.contact.id}, not ${contactId}`);
    step(
      'upsert',
      `${JSON.stringify(phone).padEnd(28)} → ${status} ${body.action}, matched_by ${body.matched_by}, phone ${body.contact.phone}`,
    );
  }
  const landline = `(${mobile.ddd}) 3${String(randomInt(1000)).padStart(3, '0')}-${b}`;
  const fixed = await put({ external_id: `QS-${run}-L`, name: 'Família Oliveira', phone: landline });
  step(
    'upsert',
    `${JSON.stringify(landline)} (landline, 8 digits kept) → ${fixed.status} ${fixed.body.action}, phone ${fixed.body.contact.phone}`,
  );

  // 3. A batch: up to 100 items, each a PUT body, each answered on its own (one bad item spoils none).
  const batch = await call('POST', `${erp}/contacts/batch`, {
    headers: { ...erpHeaders, 'idempotency-key': `quickstart-${run}` },
    json: {
      contacts: [
        { external_id: `QS-${run}-B1`, name: 'João Pereira', phone: `+55 21 9${a}-${String(randomInt(10_000)).padStart(4, '0')}` },
        { external_id: `QS-${run}-B2`, name: 'Ana Costa', phone: `31 9${a}${String(randomInt(10_000)).padStart(4, '0')}` },
        { external_id: `QS-${run}`, email: 'maria.oliveira@example.com' },
        { external_id: `QS-${run}-B3`, name: 'Sem telefone válido', phone: '123' },
      ],
    },
  });
  for (const result of batch.body.results) {
    step(
      'batch',
      `item ${result.index} → ${result.status} ${result.action ?? result.error.code}${result.contact_id ? ` ${result.contact_id}` : ''}`,
    );
  }
  const written = new Set([contactId, fixed.body.contact.id, ...batch.body.results.map((r) => r.contact_id).filter(Boolean)]);

  // 4. Follow the change feed to its end: read pages while has_more is true, keep the last cursor
  //    to poll from later. A write shows up once every older transaction on the server has ended
  //    (milliseconds), so the script reads on until it has seen its own writes.
  let cursor = args.cursor;
  let pages = 0;
  let changes = 0;
  const seen = new Set();
  const deadline = Date.now() + 15_000;
  for (;;) {
    const query = new URLSearchParams({ limit: args['page-size'], ...(cursor ? { cursor } : {}) });
    const page = (await call('GET', `${erp}/contacts/changes?${query}`, { headers: erpHeaders })).body;
    pages += 1;
    changes += page.data.length;
    for (const change of page.data) seen.add(change.contact_id);
    cursor = page.next_cursor;
    if (page.has_more) continue;
    if ([...written].every((id) => seen.has(id)) || Date.now() > deadline) break;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  const missing = [...written].filter((id) => !seen.has(id));
  if (missing.length > 0) throw new Error(`the feed did not show ${missing.join(', ')}`);
  step(
    'feed',
    `${changes} changes in ${pages} pages of up to ${args['page-size']}, followed to the end (has_more: false); ` +
      `resume later with --cursor ${cursor}`,
  );

  // 5. Make a survey triggerable: five calls on the CRM side (stages and configuration once per
  //    workspace, reused when there; a lead and a chat per contact), then the ERP triggers it.
  const stages = (await call('GET', `${crm}/pipeline-stages`, { headers: session })).body.data;
  const stage = async (n, name, position) => {
    const existing = stages.find((s) => s.name === name);
    if (existing) {
      step(`survey ${n}/5`, `stage "${name}" exists: ${existing.id}`);
      return existing;
    }
    const made = (await call('POST', `${crm}/pipeline-stages`, { headers: session, json: { name, position } })).body;
    step(`survey ${n}/5`, `POST pipeline-stages "${name}" → ${made.id}`);
    return made;
  };
  const open = await stage(1, 'Atendimento', 1);
  const surveyStage = await stage(2, 'Pesquisa de satisfação', 2);
  const config = (await call('PUT', `${crm}/survey-config`, { headers: session, json: { enabled: true, survey_stage_id: surveyStage.id } }))
    .body;
  step('survey 3/5', `PUT survey-config → enabled ${config.enabled}, survey stage ${config.survey_stage_id}`);
  const lead = (await call('POST', `${crm}/leads`, { headers: session, json: { contact_id: contactId, stage_id: open.id } })).body;
  step('survey 4/5', `POST leads → lead ${lead.id} (${lead.status}) in "Atendimento"`);
  const chat = (await call('POST', `${crm}/chats`, { headers: session, json: { contact_id: contactId } })).body;
  step('survey 5/5', `POST chats → chat ${chat.id} (${chat.channel})`);

  const trigger = (await call('POST', `${erp}/satisfaction-surveys`, { headers: erpHeaders, json: { external_id: `QS-${run}` } })).body;
  step('survey', `triggered: ${trigger.triggered} (${trigger.reason}), lead ${trigger.lead_id}`);
  if (!trigger.triggered) throw new Error(`the survey was not triggered: ${trigger.reason}`);
  const again = (await call('POST', `${erp}/satisfaction-surveys`, { headers: erpHeaders, json: { phone: `+55${digits}` } })).body;
  step('survey', `again → triggered: ${again.triggered} (${again.reason})`);
  step('done', `contact ${contactId}`);
}

main().catch((error) => {
  console.error(`failed: ${error.message}`);
  process.exit(1);
});
