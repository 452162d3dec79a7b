/**
 * @module HubSpot CRM v3 fake (https://developers.hubspot.com/docs/api/crm): owners and contacts
 * (`archived=true` lists the archived ones, as HubSpot's list endpoints do).
 * Lists page as HubSpot does: `limit` and an opaque `after`, answered as
 * `{ results, paging: { next: { after, link } } }` (no `paging` on the last page). A contact carries
 * only the properties asked for in `properties` (plus HubSpot's defaults). Errors are HubSpot's
 * envelope `{ status: 'error', message, correlationId, category }`: 401, 404 OBJECT_NOT_FOUND,
 * 409 CONFLICT on a duplicate email, 400 VALIDATION_ERROR; `throttleNext` answers the 429 of the
 * secondly limit with `Retry-After`.
 */
import { randomUUID } from 'node:crypto';
import {
  BodyParseError,
  Router,
  bearerToken,
  isRecord,
  json,
  parseBody,
  parseIntParam,
  startFakeServer,
  type Body,
  type FakeServer,
  type Reply,
  type RequestContext,
} from './server.js';

export interface HubSpotOwner {
  id: string;
  email: string;
  firstName: string;
  lastName: string;
  userId: number;
  createdAt: string;
  updatedAt: string;
  archived: boolean;
}

export interface HubSpotContact {
  id: string;
  properties: Record<string, string | null>;
  createdAt: string;
  updatedAt: string;
  archived: boolean;
}

export interface HubSpotState {
  owners: HubSpotOwner[];
  contacts: HubSpotContact[];
  nextId: number;
}

export interface HubSpotFakeOptions {
  token: string;
  owners?: Array<Pick<HubSpotOwner, 'email' | 'firstName' | 'lastName'>>;
  contacts?: Array<Record<string, string>>;
}

export interface HubSpotFake extends FakeServer<HubSpotState> {
  addContact(properties: Record<string, string>): HubSpotContact;
  /** The next `times` API requests answer HubSpot's 429 (secondly limit) with `Retry-After: seconds`. */
  throttleNext(times?: number, seconds?: number): void;
}

const DEFAULT_CONTACT_PROPERTIES = ['createdate', 'email', 'firstname', 'hs_object_id', 'lastmodifieddate', 'lastname'];
const ALWAYS = ['createdate', 'hs_object_id', 'lastmodifieddate'];
const MAX_OWNERS_LIMIT = 500;
const MAX_OBJECTS_LIMIT = 100;

function hsError(status: number, category: string, message: string, extra: Body = {}): Reply {
  return json(status, { status: 'error', message, correlationId: randomUUID(), category, ...extra });
}

export async function startHubSpotFake(options: HubSpotFakeOptions): Promise<HubSpotFake> {
  const state: HubSpotState = { owners: [], contacts: [], nextId: 101 };
  let clock = Date.UTC(2026, 0, 1);
  const stamp = () => new Date((clock += 1000)).toISOString();
  for (const o of options.owners ?? [
    { email: 'ada@example.com', firstName: 'Ada', lastName: 'Lovelace' },
    { email: 'alan@example.com', firstName: 'Alan', lastName: 'Turing' },
  ]) {
    const at = stamp();
    state.owners.push({ ...o, id: String(state.nextId++), userId: 9000 + state.owners.length, createdAt: at, updatedAt: at, archived: false });
  }
  const addContact = (properties: Record<string, string>): HubSpotContact => {
    const id = String(state.nextId++);
    const at = stamp();
    const contact: HubSpotContact = {
      id,
      properties: { ...properties, hs_object_id: id, createdate: at, lastmodifieddate: at },
      createdAt: at,
      updatedAt: at,
      archived: false,
    };
    state.contacts.push(contact);
    return contact;
  };
  for (const c of options.contacts ?? []) addContact(c);

  const router = new Router()
    .get('/account-info/v3/details', () =>
      json(200, {
        portalId: 4242,
        accountType: 'STANDARD',
        timeZone: 'Europe/Paris',
        companyCurrency: 'EUR',
        uiDomain: 'app.hubspot.com',
        dataHostingLocation: 'eu1',
      }),
    )
    .get('/crm/v3/owners', (ctx) => {
      const owners = state.owners
        .filter((o) => String(o.archived) === (ctx.query.get('archived') ?? 'false'))
        .filter((o) => !ctx.query.get('email') || o.email === ctx.query.get('email'));
      return page(ctx, owners, MAX_OWNERS_LIMIT, (o) => o);
    })
    .get('/crm/v3/objects/contacts', (ctx) =>
      page(
        ctx,
        state.contacts.filter((c) => String(c.archived) === (ctx.query.get('archived') ?? 'false')),
        MAX_OBJECTS_LIMIT,
        (c) => view(c, ctx),
      ),
    )
    .post('/crm/v3/objects/contacts', (ctx) => withProperties(ctx, (props) => createContact(state, props, addContact)))
    .get('/crm/v3/objects/contacts/:id', (ctx) => withContact(state, ctx, (c) => json(200, view(c, ctx))))
    .patch('/crm/v3/objects/contacts/:id', (ctx) =>
      withContact(state, ctx, (c) =>
        withProperties(ctx, (props) => {
          const email = props['email'];
          if (email !== undefined && !validEmail(email)) return invalidEmail(email);
          Object.assign(c.properties, props, { lastmodifieddate: (c.updatedAt = stamp()) });
          return json(200, view(c, ctx, Object.keys(c.properties)));
        }),
      ),
    )
    .delete('/crm/v3/objects/contacts/:id', (ctx) =>
      withContact(state, ctx, (c) => {
        c.archived = true;
        return { status: 204 };
      }),
    );

  const fake = await startFakeServer(state, (ctx) => {
    if (bearerToken(ctx.headers) !== options.token)
      return hsError(401, 'INVALID_AUTHENTICATION', 'Authentication credentials not found. This API supports OAuth 2.0 authentication.');
    return router.dispatch(ctx) ?? hsError(404, 'OBJECT_NOT_FOUND', `Unable to infer object type from: ${ctx.path}`);
  });
  return {
    ...fake,
    addContact,
    throttleNext(times = 1, seconds = 1) {
      fake.failNext({
        status: 429,
        times,
        headers: { 'retry-after': String(seconds), 'x-hubspot-ratelimit-secondly-remaining': '0' },
        body: JSON.stringify({
          status: 'error',
          message: 'You have reached your secondly limit.',
          errorType: 'RATE_LIMIT',
          correlationId: randomUUID(),
          policyName: 'SECONDLY',
        }),
      });
    },
  };
}

/** HubSpot's `after` is opaque; this one is the index of the next item. */
function page<T>(ctx: RequestContext, all: T[], max: number, render: (item: T) => unknown): Reply {
  const limit = parseIntParam(ctx.query.get('limit')) ?? 10;
  if (limit < 1 || limit > max) return hsError(400, 'VALIDATION_ERROR', `limit must be between 1 and ${max}`, { context: { limit: [String(limit)] } });
  const afterParam = ctx.query.get('after');
  const start = afterParam ? parseIntParam(afterParam) : 0;
  if (start === undefined || start < 0) return hsError(400, 'VALIDATION_ERROR', `Invalid after: ${afterParam}`);
  const results = all.slice(start, start + limit).map(render);
  const next = start + limit < all.length ? String(start + limit) : undefined;
  const link = () => {
    const params = new URLSearchParams(ctx.query);
    params.set('after', next!);
    return `${ctx.origin}${ctx.path}?${params.toString()}`;
  };
  return json(200, next ? { results, paging: { next: { after: next, link: link() } } } : { results });
}

function view(contact: HubSpotContact, ctx: RequestContext, names?: string[]): Body {
  const asked = ctx.query.get('properties')?.split(',').filter(Boolean);
  const wanted = new Set([...(names ?? asked ?? DEFAULT_CONTACT_PROPERTIES), ...ALWAYS]);
  const properties = Object.fromEntries([...wanted].map((k) => [k, contact.properties[k] ?? null]));
  return { id: contact.id, properties, createdAt: contact.createdAt, updatedAt: contact.updatedAt, archived: contact.archived };
}

function withContact(state: HubSpotState, ctx: RequestContext, fn: (c: HubSpotContact) => Reply): Reply {
  const contact = state.contacts.find((c) => c.id === ctx.params.id && !c.archived);
  return contact ? fn(contact) : { status: 404 };
}

function withProperties(ctx: RequestContext, fn: (props: Record<string, string>) => Reply): Reply {
  let body: Body;
  try {
    body = parseBody(ctx);
  } catch (err) {
    if (err instanceof BodyParseError) return hsError(400, 'VALIDATION_ERROR', 'Invalid input JSON on line 1');
    throw err;
  }
  const props = body['properties'];
  if (!isRecord(props)) return hsError(400, 'VALIDATION_ERROR', 'Invalid input JSON: properties is required');
  return fn(Object.fromEntries(Object.entries(props).map(([k, v]) => [k, v === null ? '' : String(v)])));
}

function validEmail(email: string): boolean {
  return /^[^@\s]+@[^@\s]+\.[^@\s]+$/.test(email);
}

function invalidEmail(email: string): Reply {
  return hsError(
    400,
    'VALIDATION_ERROR',
    `Property values were not valid: [{"isValid":false,"message":"Email address ${email} is invalid","error":"INVALID_EMAIL","name":"email"}]`,
  );
}

function createContact(state: HubSpotState, props: Record<string, string>, add: (p: Record<string, string>) => HubSpotContact): Reply {
  const email = props['email'];
  if (email !== undefined && !validEmail(email)) return invalidEmail(email);
  const existing = email ? state.contacts.find((c) => !c.archived && c.properties['email']?.toLowerCase() === email.toLowerCase()) : undefined;
  if (existing) return hsError(409, 'CONFLICT', `Contact already exists. Existing ID: ${existing.id}`);
  const contact = add(props);
  return json(201, { id: contact.id, properties: contact.properties, createdAt: contact.createdAt, updatedAt: contact.updatedAt, archived: false });
}
