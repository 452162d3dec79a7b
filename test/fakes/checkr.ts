/**
 * @module Fake Checkr Partner API: OAuth connect, Basic-token API with link pagination, rate limit
 * headers, and signed webhooks (FACTS.md §2 and §5.2).
 */
import { createHmac, randomUUID } from 'node:crypto';
import {
  BodyParseError,
  Router,
  basicCredentials,
  escapeHtml,
  html,
  isRecord,
  json,
  parseBody,
  parseIntParam,
  postRaw,
  randomHex,
  redirect,
  startFakeServer,
} from './server.js';
import type { Body, FakeServer, Reply, RequestContext } from './server.js';

// ---------------------------------------------------------------------------------------------
// Resource shapes

export interface Screening {
  type: string;
  subtype: string | null;
}

export interface CheckrPackage {
  id: string;
  object: 'package';
  uri: string;
  apply_url: string;
  created_at: string;
  deleted_at: string | null;
  name: string;
  slug: string;
  price: number;
  drug_screening_price: number | null;
  enabled_exams: string[];
  requires_observed_drug_test: boolean;
  screenings: Screening[];
}

export interface CheckrNode {
  custom_id: string;
  name: string;
  tier: string;
  parent_custom_id: string | null;
  /** Package slugs assigned directly; include=packages adds the ancestors' ones. */
  packages: string[];
}

export interface WorkLocation {
  country?: string;
  state?: string;
  city?: string;
}

export interface CheckrCandidate {
  id: string;
  object: 'candidate';
  uri: string;
  created_at: string;
  first_name: string | null;
  middle_name: string | null;
  no_middle_name: boolean;
  last_name: string | null;
  mother_maiden_name: string | null;
  email: string;
  phone: string | null;
  zipcode: string | null;
  dob: string | null;
  ssn: string | null;
  driver_license_number: string | null;
  driver_license_state: string | null;
  previous_driver_license_number: string | null;
  previous_driver_license_state: string | null;
  copy_requested: boolean;
  custom_id: string | null;
  report_ids: string[];
  geo_ids: string[];
  adjudication: string | null;
  metadata: Record<string, unknown>;
  work_locations: WorkLocation[];
}

export type InvitationStatus = 'pending' | 'completed' | 'expired';

export interface CheckrInvitation {
  id: string;
  object: 'invitation';
  uri: string;
  invitation_url: string;
  status: InvitationStatus;
  created_at: string;
  updated_at: string;
  expires_at: string;
  completed_at: string | null;
  deleted_at: string | null;
  package: string;
  candidate_id: string;
  report_id: string | null;
  node: string | null;
  work_locations: WorkLocation[];
  tags: string[];
  archived: boolean;
  archived_info: { time: string; user: { email: string; id: string } } | null;
}

export interface CheckrReport {
  id: string;
  object: 'report';
  uri: string;
  status: 'pending' | 'suspended' | 'paused' | 'complete' | 'canceled' | 'dispute';
  result: 'clear' | 'consider' | null;
  adjudication: string | null;
  created_at: string;
  completed_at: string | null;
  revised_at: string | null;
  upgraded_at: string | null;
  turnaround_time: number | null;
  estimated_completion_time: string | null;
  package: string;
  source: string;
  candidate_id: string;
  ssn_trace_id: string | null;
  sex_offender_search_id: string | null;
  national_criminal_search_id: string | null;
  county_criminal_search_ids: string[];
  motor_vehicle_report_id: string | null;
  document_ids: string[];
  geo_ids: string[];
  program_id: string | null;
  tags: string[];
}

export interface CheckrAccount {
  /** The customer's checkr_account_id. */
  id: string;
  name: string;
  hierarchyEnabled: boolean;
  createdAt: string;
  packages: CheckrPackage[];
  nodes: CheckrNode[];
  candidates: CheckrCandidate[];
  invitations: CheckrInvitation[];
  reports: CheckrReport[];
}

export interface WebhookDelivery {
  url: string;
  type: string;
  accountId: string;
  body: string;
  signature: string;
  status: number;
  responseBody: string;
  at: number;
}

export interface RateLimitConfig {
  limit: number;
  windowMs: number;
}

export interface CheckrState {
  accounts: CheckrAccount[];
  /** Access token → account id. */
  tokens: Record<string, string>;
  /** Authorization code → who approved it. */
  codes: Record<string, { accountId: string; used: boolean }>;
  /** Mutable: tests may tighten it mid-test. */
  rateLimit: RateLimitConfig;
  /** Account id → current fixed window. */
  rateWindows: Record<string, { startedAt: number; count: number }>;
  webhookDeliveries: WebhookDelivery[];
}

export interface CheckrAccountSeed {
  id?: string;
  name?: string;
  hierarchyEnabled?: boolean;
  /** Pre-issued token, so tests can skip the OAuth dance. */
  accessToken?: string;
  packages?: Array<{ slug: string; name: string; screenings?: Screening[]; price?: number }>;
  nodes?: CheckrNode[];
}

export interface CheckrFakeOptions {
  clientId: string;
  clientSecret: string;
  /** Default: one account "Acme Staffing" without hierarchy. */
  accounts?: CheckrAccountSeed[];
  /** Default 1200 requests per 60 s per account. */
  rateLimit?: RateLimitConfig;
  /** Used when /authorize gets no redirect_uri (the partner app's configured one). */
  redirectUri?: string;
}

export interface CheckrFake extends FakeServer<CheckrState> {
  /** Issues a fresh token for an account (default: the first one). */
  issueToken(accountId?: string): string;
  completeInvitation(
    id: string,
    options: { webhookUrl: string; result?: 'clear' | 'consider' },
  ): Promise<{ invitation: CheckrInvitation; report: CheckrReport; deliveries: WebhookDelivery[] }>;
  sendWebhook(url: string, type: string, object: unknown, accountId: string): Promise<{ status: number; body: string }>;
}

// ---------------------------------------------------------------------------------------------

const DEFAULT_PER_PAGE = 25;
const MAX_PER_PAGE = 100;
const INVITATION_TTL_MS = 7 * 24 * 3600 * 1000;
const INVITATION_STATUSES: readonly string[] = ['pending', 'completed', 'expired'];

const DEFAULT_PACKAGES: NonNullable<CheckrAccountSeed['packages']> = [
  {
    slug: 'tasker_standard',
    name: 'Tasker Standard',
    price: 2999,
    screenings: [
      { type: 'ssn_trace', subtype: null },
      { type: 'sex_offender_search', subtype: null },
      { type: 'national_criminal_search', subtype: 'standard' },
      { type: 'county_criminal_search', subtype: '7years' },
    ],
  },
  {
    slug: 'driver_pro',
    name: 'Driver Pro',
    price: 4999,
    screenings: [
      { type: 'ssn_trace', subtype: null },
      { type: 'national_criminal_search', subtype: 'standard' },
      { type: 'motor_vehicle_report', subtype: null },
    ],
  },
  { slug: 'basic_plus', name: 'Basic+', price: 1999, screenings: [{ type: 'ssn_trace', subtype: null }] },
];

const DEFAULT_NODES: CheckrNode[] = [
  { custom_id: 'acme-hq', name: 'Acme HQ', tier: 'company', parent_custom_id: null, packages: ['tasker_standard'] },
  { custom_id: 'acme-west', name: 'West Region', tier: 'region', parent_custom_id: 'acme-hq', packages: ['driver_pro'] },
];

function checkrId(): string {
  return randomHex(12);
}

function nowIso(): string {
  return new Date().toISOString();
}

function apiError(status: number, message: string, headers: Record<string, string> = {}): Reply {
  return json(status, { error: message }, headers);
}

function buildAccount(seed: CheckrAccountSeed, origin: string): CheckrAccount {
  const id = seed.id ?? checkrId();
  const createdAt = nowIso();
  const packages = (seed.packages ?? DEFAULT_PACKAGES).map((p): CheckrPackage => {
    const packageId = checkrId();
    return {
      id: packageId,
      object: 'package',
      uri: `/v1/packages/${packageId}`,
      apply_url: `${origin}/apply/${id}/${packageId}`,
      created_at: createdAt,
      deleted_at: null,
      name: p.name,
      slug: p.slug,
      price: p.price ?? 2500,
      drug_screening_price: null,
      enabled_exams: [],
      requires_observed_drug_test: false,
      screenings: p.screenings ?? [{ type: 'ssn_trace', subtype: null }],
    };
  });
  const hierarchyEnabled = seed.hierarchyEnabled ?? false;
  return {
    id,
    name: seed.name ?? 'Acme Staffing',
    hierarchyEnabled,
    createdAt,
    packages,
    nodes: hierarchyEnabled ? structuredClone(seed.nodes ?? DEFAULT_NODES) : [],
    candidates: [],
    invitations: [],
    reports: [],
  };
}

// ---------------------------------------------------------------------------------------------

export async function startCheckrFake(options: CheckrFakeOptions): Promise<CheckrFake> {
  const state: CheckrState = {
    accounts: [],
    tokens: {},
    codes: {},
    rateLimit: options.rateLimit ?? { limit: 1200, windowMs: 60_000 },
    rateWindows: {},
    webhookDeliveries: [],
  };
  const api = new CheckrApi(state, options);
  const fake = await startFakeServer(state, (ctx) => api.handle(ctx));
  // Accounts are built once the origin is known, because package apply_urls point at it.
  for (const seed of options.accounts ?? [{}]) {
    const account = buildAccount(seed, fake.url);
    state.accounts.push(account);
    if (seed.accessToken) state.tokens[seed.accessToken] = account.id;
  }
  const webhooks = new CheckrWebhooks(state, options.clientSecret);

  return {
    ...fake,
    issueToken: (accountId) => api.issueToken(accountId ?? (state.accounts[0] as CheckrAccount).id),
    completeInvitation: (id, opts) => webhooks.completeInvitation(id, opts),
    sendWebhook: async (url, type, object, accountId) => {
      const delivery = await webhooks.send(url, type, object, accountId);
      return { status: delivery.status, body: delivery.responseBody };
    },
  };
}

class CheckrApi {
  private readonly router = new Router();

  constructor(
    private readonly state: CheckrState,
    private readonly options: CheckrFakeOptions,
  ) {
    this.router
      .get('/authorize/:clientId', (ctx) => this.authorizePage(ctx))
      .get('/authorize/:clientId/signup', (ctx) => this.authorizePage(ctx))
      .get('/authorize/:clientId/approve', (ctx) => this.approve(ctx))
      .post('/oauth/tokens', (ctx) => this.exchange(ctx))
      .post('/oauth/deauthorize', (ctx) => this.deauthorize(ctx))
      .get('/v1/account', (ctx) => this.api(ctx, (a) => json(200, renderAccount(a))))
      .get('/v1/packages', (ctx) => this.api(ctx, (a) => listEnvelope(ctx, a.packages)))
      .get('/v1/nodes', (ctx) => this.api(ctx, (a) => this.listNodes(ctx, a)))
      .get('/v1/candidates', (ctx) => this.api(ctx, (a) => listEnvelope(ctx, newestFirst(a.candidates))))
      .post('/v1/candidates', (ctx) => this.api(ctx, (a) => this.withBody(ctx, (b) => createCandidate(a, b))))
      .get('/v1/candidates/:id', (ctx) => this.api(ctx, (a) => found(a.candidates, ctx.params['id'])))
      .post('/v1/invitations', (ctx) => this.api(ctx, (a) => this.withBody(ctx, (b) => createInvitation(ctx, a, b))))
      .get('/v1/invitations', (ctx) => this.api(ctx, (a) => listInvitations(ctx, a)))
      .get('/v1/invitations/:id', (ctx) => this.api(ctx, (a) => found(a.invitations, ctx.params['id'])))
      .delete('/v1/invitations/:id', (ctx) => this.api(ctx, (a) => cancelInvitation(a, ctx.params['id'])))
      .get('/v1/reports/:id', (ctx) => this.api(ctx, (a) => found(a.reports, ctx.params['id'])));
  }

  async handle(ctx: RequestContext): Promise<Reply> {
    return (await this.router.dispatch(ctx)) ?? apiError(404, 'Not Found');
  }

  issueToken(accountId: string): string {
    if (!this.state.accounts.some((a) => a.id === accountId)) throw new Error(`unknown account ${accountId}`);
    const token = randomHex(20);
    this.state.tokens[token] = accountId;
    return token;
  }

  // ------------------------------------------------------------------------------------------
  // OAuth

  private authorizePage(ctx: RequestContext): Reply {
    if (ctx.params['clientId'] !== this.options.clientId) return html(404, '<h1>Unknown partner application</h1>');
    const redirectUri = ctx.query.get('redirect_uri') ?? this.options.redirectUri;
    if (!redirectUri) return html(400, '<h1>Missing redirect_uri</h1>');
    const account = this.accountFor(ctx.query.get('account'));
    if (!account) return html(400, '<h1>Unknown account</h1>');
    const state = ctx.query.get('state') ?? '';
    if (ctx.query.get('auto') === '1') return this.approveFor(account.id, redirectUri, state);
    const approve = new URLSearchParams({ redirect_uri: redirectUri, state, account: account.id });
    const approveUrl = `/authorize/${encodeURIComponent(this.options.clientId)}/approve?${approve}`;
    return html(
      200,
      `<!doctype html><html><head><meta charset="utf-8"><title>Connect to Checkr</title></head><body>
<h1>Connect ${escapeHtml(account.name)} to the partner application</h1>
<a id="authorize" href="${escapeHtml(approveUrl)}">Authorize</a>
</body></html>`,
    );
  }

  private approve(ctx: RequestContext): Reply {
    if (ctx.params['clientId'] !== this.options.clientId) return html(404, '<h1>Unknown partner application</h1>');
    const account = this.accountFor(ctx.query.get('account'));
    const redirectUri = ctx.query.get('redirect_uri');
    if (!account || !redirectUri) return html(400, '<h1>Invalid authorization request</h1>');
    return this.approveFor(account.id, redirectUri, ctx.query.get('state') ?? '');
  }

  private approveFor(accountId: string, redirectUri: string, state: string): Reply {
    const code = randomHex(16);
    this.state.codes[code] = { accountId, used: false };
    const target = new URL(redirectUri);
    target.searchParams.set('code', code);
    if (state) target.searchParams.set('state', state);
    return redirect(target.toString());
  }

  private accountFor(id: string | null): CheckrAccount | undefined {
    return id ? this.state.accounts.find((a) => a.id === id) : this.state.accounts[0];
  }

  private exchange(ctx: RequestContext): Reply {
    let body: Body;
    try {
      body = parseBody(ctx);
    } catch {
      return json(400, { errors: ['Malformed request body'] });
    }
    if (body['client_id'] !== this.options.clientId || body['client_secret'] !== this.options.clientSecret) {
      return json(401, { errors: ['Invalid client credentials'] });
    }
    if (body['grant_type'] !== undefined && body['grant_type'] !== 'authorization_code') {
      return json(400, { errors: ['Unsupported grant_type'] });
    }
    const grant = typeof body['code'] === 'string' ? this.state.codes[body['code']] : undefined;
    if (!grant || grant.used) return json(401, { errors: ['Invalid authorization code'] });
    grant.used = true;
    return json(200, { access_token: this.issueToken(grant.accountId), checkr_account_id: grant.accountId });
  }

  private deauthorize(ctx: RequestContext): Reply {
    const token = basicCredentials(ctx.headers)?.user;
    if (!token || !this.state.tokens[token]) return apiError(401, 'Bad authentication error');
    delete this.state.tokens[token];
    return { status: 204 };
  }

  // ------------------------------------------------------------------------------------------
  // API plumbing

  private api(ctx: RequestContext, run: (account: CheckrAccount) => Reply): Reply {
    const token = basicCredentials(ctx.headers)?.user;
    const accountId = token ? this.state.tokens[token] : undefined;
    const account = this.state.accounts.find((a) => a.id === accountId);
    if (!account) return apiError(401, 'Bad authentication error');
    const limit = this.consumeRate(account.id);
    if (limit.exceeded) return apiError(429, 'Too Many Requests', { ...limit.headers, 'retry-after': limit.retryAfter });
    const reply = run(account);
    return { ...reply, headers: { ...reply.headers, ...limit.headers } };
  }

  private consumeRate(accountId: string): { exceeded: boolean; headers: Record<string, string>; retryAfter: string } {
    const { limit, windowMs } = this.state.rateLimit;
    const now = Date.now();
    let window = this.state.rateWindows[accountId];
    if (!window || now - window.startedAt >= windowMs) {
      window = { startedAt: now, count: 0 };
      this.state.rateWindows[accountId] = window;
    }
    window.count += 1;
    const resetMs = window.startedAt + windowMs;
    const headers = {
      'x-ratelimit-limit': String(limit),
      'x-ratelimit-remaining': String(Math.max(0, limit - window.count)),
      'x-ratelimit-reset': String(Math.ceil(resetMs / 1000)),
    };
    return { exceeded: window.count > limit, headers, retryAfter: String(Math.max(1, Math.ceil((resetMs - now) / 1000))) };
  }

  private withBody(ctx: RequestContext, run: (body: Body) => Reply): Reply {
    try {
      return run(parseBody(ctx));
    } catch (err) {
      if (err instanceof BodyParseError) return apiError(400, 'Malformed request body');
      throw err;
    }
  }

  private listNodes(ctx: RequestContext, account: CheckrAccount): Reply {
    if (!account.hierarchyEnabled) {
      return apiError(403, 'Account Hierarchy is not enabled for this account. Contact Checkr to enable Account Hierarchy.');
    }
    const withPackages = (ctx.query.get('include') ?? '').split(',').includes('packages');
    const nodes = account.nodes.map((node) => {
      const base = { custom_id: node.custom_id, name: node.name, tier: node.tier, parent_custom_id: node.parent_custom_id };
      return withPackages ? { ...base, packages: inheritedPackages(account.nodes, node) } : base;
    });
    return listEnvelope(ctx, nodes);
  }
}

// ---------------------------------------------------------------------------------------------
// Resources

function listEnvelope<T>(ctx: RequestContext, items: T[]): Reply {
  const perPage = Math.min(MAX_PER_PAGE, Math.max(1, parseIntParam(ctx.query.get('per_page')) ?? DEFAULT_PER_PAGE));
  const page = Math.max(1, parseIntParam(ctx.query.get('page')) ?? 1);
  const start = (page - 1) * perPage;
  const href = (n: number): string => {
    const query = new URLSearchParams(ctx.query);
    query.set('page', String(n));
    query.set('per_page', String(perPage));
    return `${ctx.origin}${ctx.path}?${query}`;
  };
  return json(200, {
    object: 'list',
    data: items.slice(start, start + perPage),
    count: items.length,
    next_href: start + perPage < items.length ? href(page + 1) : null,
    previous_href: page > 1 ? href(page - 1) : null,
  });
}

function newestFirst<T extends { created_at: string }>(items: T[]): T[] {
  // Stable reverse keeps insertion order meaningful when timestamps tie.
  return [...items].reverse().sort((a, b) => b.created_at.localeCompare(a.created_at));
}

function found<T extends { id: string }>(items: T[], id: string | undefined): Reply {
  const item = items.find((i) => i.id === id);
  return item ? json(200, item) : apiError(404, 'Not Found');
}

function inheritedPackages(nodes: CheckrNode[], node: CheckrNode): string[] {
  const slugs = new Set<string>();
  for (let current: CheckrNode | undefined = node; current;) {
    current.packages.forEach((slug) => slugs.add(slug));
    const parent: string | null = current.parent_custom_id;
    current = parent ? nodes.find((n) => n.custom_id === parent) : undefined;
  }
  return [...slugs];
}

function str(body: Body, key: string): string | null {
  const value = body[key];
  return typeof value === 'string' && value !== '' ? value : null;
}

function workLocations(value: unknown): WorkLocation[] {
  if (!Array.isArray(value)) return [];
  return value.filter(isRecord).map((loc) => {
    const out: WorkLocation = {};
    for (const key of ['country', 'state', 'city'] as const) {
      if (typeof loc[key] === 'string') out[key] = loc[key];
    }
    return out;
  });
}

function maskSsn(ssn: string | null): string | null {
  return ssn ? `XXX-XX-${ssn.replace(/\D/g, '').slice(-4)}` : null;
}

function createCandidate(account: CheckrAccount, body: Body): Reply {
  const email = str(body, 'email');
  if (!email) return apiError(400, 'Email is required');
  if (!/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(email)) return apiError(400, 'Email is invalid');
  const id = checkrId();
  const candidate: CheckrCandidate = {
    id,
    object: 'candidate',
    uri: `/v1/candidates/${id}`,
    created_at: nowIso(),
    first_name: str(body, 'first_name'),
    middle_name: str(body, 'middle_name'),
    no_middle_name: body['no_middle_name'] === true || body['no_middle_name'] === 'true',
    last_name: str(body, 'last_name'),
    mother_maiden_name: str(body, 'mother_maiden_name'),
    email,
    phone: str(body, 'phone'),
    zipcode: str(body, 'zipcode'),
    dob: str(body, 'dob'),
    ssn: maskSsn(str(body, 'ssn')),
    driver_license_number: str(body, 'driver_license_number'),
    driver_license_state: str(body, 'driver_license_state'),
    previous_driver_license_number: str(body, 'previous_driver_license_number'),
    previous_driver_license_state: str(body, 'previous_driver_license_state'),
    copy_requested: body['copy_requested'] === true || body['copy_requested'] === 'true',
    custom_id: str(body, 'custom_id'),
    report_ids: [],
    geo_ids: [],
    adjudication: null,
    metadata: isRecord(body['metadata']) ? body['metadata'] : {},
    work_locations: workLocations(body['work_locations']),
  };
  account.candidates.push(candidate);
  return json(201, candidate);
}

function validateInvitation(account: CheckrAccount, body: Body, locations: WorkLocation[]): string | undefined {
  const pkg = str(body, 'package');
  const candidateId = str(body, 'candidate_id');
  if (!pkg) return 'package is required';
  if (!candidateId) return 'candidate_id is required';
  if (!account.packages.some((p) => p.slug === pkg)) return `Package ${pkg} not found`;
  if (!account.candidates.some((c) => c.id === candidateId)) return `Candidate ${candidateId} not found`;
  if (!account.hierarchyEnabled) return undefined;
  const node = str(body, 'node');
  if (!node) return 'node is required for accounts with Account Hierarchy enabled';
  if (!account.nodes.some((n) => n.custom_id === node)) return `Node ${node} not found`;
  if (locations.length === 0) return 'work_locations is required for accounts with Account Hierarchy enabled';
  for (const loc of locations) {
    const country = loc.country ?? 'US';
    if (country === 'US' && !loc.state) return 'work_locations state is required for US work locations';
  }
  return undefined;
}

function createInvitation(ctx: RequestContext, account: CheckrAccount, body: Body): Reply {
  const locations = workLocations(body['work_locations']);
  const problem = validateInvitation(account, body, locations);
  if (problem) return apiError(400, problem);
  const id = checkrId();
  const now = new Date();
  const tags = Array.isArray(body['tags']) ? body['tags'].filter((t): t is string => typeof t === 'string') : [];
  const invitation: CheckrInvitation = {
    id,
    object: 'invitation',
    uri: `/v1/invitations/${id}`,
    invitation_url: `${ctx.origin}/invite/${randomHex(10)}`,
    status: 'pending',
    created_at: now.toISOString(),
    updated_at: now.toISOString(),
    expires_at: new Date(now.getTime() + INVITATION_TTL_MS).toISOString(),
    completed_at: null,
    deleted_at: null,
    package: str(body, 'package') as string,
    candidate_id: str(body, 'candidate_id') as string,
    report_id: null,
    node: str(body, 'node'),
    work_locations: locations,
    tags,
    archived: false,
    archived_info: null,
  };
  account.invitations.push(invitation);
  return json(201, invitation);
}

function listInvitations(ctx: RequestContext, account: CheckrAccount): Reply {
  const status = ctx.query.get('status');
  if (status !== null && !INVITATION_STATUSES.includes(status)) {
    return apiError(400, `status must be one of ${INVITATION_STATUSES.join(', ')}`);
  }
  const candidateId = ctx.query.get('candidate_id');
  // The real list endpoint leaves out invitations with non-US work locations.
  const items = newestFirst(account.invitations).filter(
    (i) =>
      (status === null || i.status === status) &&
      (candidateId === null || i.candidate_id === candidateId) &&
      i.work_locations.every((loc) => (loc.country ?? 'US') === 'US'),
  );
  return listEnvelope(ctx, items);
}

function cancelInvitation(account: CheckrAccount, id: string | undefined): Reply {
  const invitation = account.invitations.find((i) => i.id === id);
  if (!invitation) return apiError(404, 'Not Found');
  if (invitation.status !== 'pending') return apiError(400, 'Only pending invitations can be canceled');
  const now = nowIso();
  invitation.status = 'expired';
  invitation.deleted_at = now;
  invitation.updated_at = now;
  return json(200, invitation);
}

function renderAccount(account: CheckrAccount): Record<string, unknown> {
  return {
    id: account.id,
    object: 'account',
    uri: `/v1/accounts/${account.id}`,
    account_deauthorization: {},
    adverse_action_email: 'adverse@acme.example',
    api_authorized: true,
    authorized: true,
    available_screenings: ['ssn_trace', 'sex_offender_search', 'national_criminal_search', 'county_criminal_search', 'motor_vehicle_report'],
    billing_email: 'billing@acme.example',
    company: { street: '1 Market St', city: 'San Francisco', state: 'CA', zipcode: '94105', dba_name: account.name },
    compliance_contact_email: 'compliance@acme.example',
    created_at: account.createdAt,
    default_compliance_city: 'San Francisco',
    default_compliance_state: 'CA',
    geos_required: false,
    name: account.name,
    purpose: 'employment',
    segmentation_enabled: account.hierarchyEnabled,
    support_email: 'support@acme.example',
    support_phone: '+14155550100',
    technical_contact_email: 'tech@acme.example',
    uri_name: account.name
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-|-$/g, ''),
  };
}

// ---------------------------------------------------------------------------------------------
// Webhooks

class CheckrWebhooks {
  constructor(
    private readonly state: CheckrState,
    private readonly clientSecret: string,
  ) {}

  async send(url: string, type: string, object: unknown, accountId: string): Promise<WebhookDelivery> {
    const body = JSON.stringify({
      id: randomHex(12),
      object: 'event',
      type,
      created_at: nowIso(),
      webhook_url: url,
      data: { object },
      account_id: accountId,
    });
    const signature = createHmac('sha256', this.clientSecret).update(body).digest('hex');
    const response = await postRaw(url, body, {
      'content-type': 'application/json',
      'user-agent': 'Checkr-Webhook/1.0',
      'x-checkr-signature': signature,
      'x-request-id': randomUUID(),
    });
    const delivery: WebhookDelivery = {
      url,
      type,
      accountId,
      body,
      signature,
      status: response.status,
      responseBody: response.body,
      at: Date.now(),
    };
    this.state.webhookDeliveries.push(delivery);
    return delivery;
  }

  async completeInvitation(
    id: string,
    options: { webhookUrl: string; result?: 'clear' | 'consider' },
  ): Promise<{ invitation: CheckrInvitation; report: CheckrReport; deliveries: WebhookDelivery[] }> {
    const account = this.state.accounts.find((a) => a.invitations.some((i) => i.id === id));
    const invitation = account?.invitations.find((i) => i.id === id);
    if (!account || !invitation) throw new Error(`unknown invitation ${id}`);
    if (invitation.status !== 'pending') throw new Error(`invitation ${id} is ${invitation.status}, not pending`);

    const report = buildReport(account, invitation, options.result ?? 'clear');
    account.reports.push(report);
    account.candidates.find((c) => c.id === invitation.candidate_id)?.report_ids.push(report.id);
    const now = nowIso();
    Object.assign(invitation, { status: 'completed', completed_at: now, updated_at: now, report_id: report.id });

    const deliveries = [
      await this.send(options.webhookUrl, 'invitation.completed', invitation, account.id),
      await this.send(options.webhookUrl, 'report.completed', report, account.id),
    ];
    return { invitation, report, deliveries };
  }
}

function buildReport(account: CheckrAccount, invitation: CheckrInvitation, result: 'clear' | 'consider'): CheckrReport {
  const screenings = new Set(account.packages.find((p) => p.slug === invitation.package)?.screenings.map((s) => s.type));
  const screeningId = (type: string): string | null => (screenings.has(type) ? checkrId() : null);
  const id = checkrId();
  const now = new Date();
  return {
    id,
    object: 'report',
    uri: `/v1/reports/${id}`,
    status: 'complete',
    result,
    adjudication: null,
    created_at: invitation.created_at,
    completed_at: now.toISOString(),
    revised_at: null,
    upgraded_at: null,
    turnaround_time: Math.round((now.getTime() - Date.parse(invitation.created_at)) / 1000),
    estimated_completion_time: now.toISOString(),
    package: invitation.package,
    source: 'invitation',
    candidate_id: invitation.candidate_id,
    ssn_trace_id: screeningId('ssn_trace'),
    sex_offender_search_id: screeningId('sex_offender_search'),
    national_criminal_search_id: screeningId('national_criminal_search'),
    county_criminal_search_ids: screenings.has('county_criminal_search') ? [checkrId()] : [],
    motor_vehicle_report_id: screeningId('motor_vehicle_report'),
    document_ids: [],
    geo_ids: [],
    program_id: null,
    tags: [...invitation.tags],
  };
}
