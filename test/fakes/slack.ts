/**
 * @module Fake Slack Web API (users.list, users.info, chat.postMessage, auth.test) plus Slack-shaped
 * OAuth v2 on the same origin (FACTS.md §3). `throttleNext` answers Slack's rate limit: HTTP 429
 * with `Retry-After` and `{ ok: false, error: 'ratelimited' }`.
 */
import { OAuthProvider, createOAuthProviderState } from './oauth-provider.js';
import type { OAuthProviderOptions, OAuthProviderState } from './oauth-provider.js';
import { BodyParseError, Router, bearerToken, json, parseBody, parseIntParam, startFakeServer } from './server.js';
import type { Body, FakeServer, Handler, Reply, RequestContext } from './server.js';

export interface SlackProfile {
  avatar_hash: string;
  real_name: string;
  display_name: string;
  real_name_normalized: string;
  display_name_normalized: string;
  email?: string;
  first_name: string;
  last_name: string;
  image_original?: string;
  image_72: string;
  is_custom_image: boolean;
  status_text: string;
  status_emoji: string;
  team: string;
  bot_id?: string;
}

export interface SlackMember {
  id: string;
  team_id: string;
  name: string;
  deleted: boolean;
  color: string;
  real_name: string;
  tz: string;
  tz_label: string;
  tz_offset: number;
  profile: SlackProfile;
  is_admin: boolean;
  is_owner: boolean;
  is_primary_owner: boolean;
  is_restricted: boolean;
  is_ultra_restricted: boolean;
  is_bot: boolean;
  is_app_user: boolean;
  /** Epoch seconds. */
  updated: number;
}

export interface SlackChannel {
  id: string;
  name: string;
  /** Whether the bot is in the channel (else chat.postMessage → not_in_channel). */
  is_member: boolean;
  is_archived: boolean;
}

export interface SlackMessage {
  channel: string;
  text: string;
  ts: string;
  user: string;
  /** The request body as received. */
  request: Body;
}

export interface SlackState {
  teamId: string;
  members: SlackMember[];
  channels: SlackChannel[];
  messages: SlackMessage[];
  oauth: OAuthProviderState;
}

export interface SlackFakeOptions {
  /** Bot token accepted without going through OAuth. */
  token: string;
  /** Default: alice (admin/owner), bob, carol, dave (deleted), the bot user. */
  members?: SlackMember[];
  /** Default: C0GENERAL1 #general and C0RANDOM01 #random (bot is member), C0PRIVATE1 #secret (not member). */
  channels?: SlackChannel[];
  oauth?: Partial<
    Pick<
      OAuthProviderOptions,
      'clientId' | 'clientSecret' | 'issueRefreshTokens' | 'rotateRefreshTokens' | 'accessTokenTtlSeconds' | 'autoApprove' | 'redirectUris'
    >
  >;
}

export interface SlackFake extends FakeServer<SlackState> {
  oauth: OAuthProvider;
  addMember(seed: SlackMemberSeed): SlackMember;
  expireToken(accessToken?: string): void;
  throttleNext(times?: number, seconds?: number): void;
}

export const SLACK_TEAM = { id: 'T0FAKETEAM', name: 'Fake Team', domain: 'fake-team' } as const;
export const SLACK_BOT = { userId: 'U0FAKEBOT1', botId: 'B0FAKEBOT1', appId: 'A0FAKEAPP1', name: 'switchyard-bot' } as const;
const MAX_LIMIT = 1000;
const MAX_TEXT = 40_000;

export interface SlackMemberSeed {
  id: string;
  name: string;
  realName?: string;
  email?: string;
  deleted?: boolean;
  isBot?: boolean;
  isAdmin?: boolean;
  isOwner?: boolean;
  tz?: string;
}

export function makeSlackMember(seed: SlackMemberSeed): SlackMember {
  const realName = seed.realName ?? seed.name;
  const [first = '', ...rest] = realName.split(' ');
  return {
    id: seed.id,
    team_id: SLACK_TEAM.id,
    name: seed.name,
    deleted: seed.deleted ?? false,
    color: '9f69e7',
    real_name: realName,
    tz: seed.tz ?? 'America/Los_Angeles',
    tz_label: 'Pacific Standard Time',
    tz_offset: -28800,
    profile: {
      avatar_hash: 'g0fake0hash',
      real_name: realName,
      display_name: seed.name,
      real_name_normalized: realName,
      display_name_normalized: seed.name,
      ...(seed.email ? { email: seed.email } : {}),
      first_name: first,
      last_name: rest.join(' '),
      image_72: `https://avatars.slack-edge.com/fake/${seed.id}_72.png`,
      is_custom_image: false,
      status_text: '',
      status_emoji: '',
      team: SLACK_TEAM.id,
      ...(seed.isBot ? { bot_id: SLACK_BOT.botId } : {}),
    },
    is_admin: seed.isAdmin ?? false,
    is_owner: seed.isOwner ?? false,
    is_primary_owner: seed.isOwner ?? false,
    is_restricted: false,
    is_ultra_restricted: false,
    is_bot: seed.isBot ?? false,
    is_app_user: false,
    updated: Math.floor(Date.now() / 1000),
  };
}

function defaultMembers(): SlackMember[] {
  return [
    makeSlackMember({ id: 'U0ALICE001', name: 'alice', realName: 'Alice Admin', email: 'alice@fake-team.example', isAdmin: true, isOwner: true }),
    makeSlackMember({ id: 'U0BOB00002', name: 'bob', realName: 'Bob Builder', email: 'bob@fake-team.example' }),
    makeSlackMember({ id: 'U0CAROL003', name: 'carol', realName: 'Carol Chen', email: 'carol@fake-team.example', tz: 'Europe/Paris' }),
    makeSlackMember({ id: 'U0DAVE0004', name: 'dave', realName: 'Dave Departed', email: 'dave@fake-team.example', deleted: true }),
    makeSlackMember({ id: SLACK_BOT.userId, name: SLACK_BOT.name, realName: 'Switchyard Bot', isBot: true }),
  ];
}

function defaultChannels(): SlackChannel[] {
  return [
    { id: 'C0GENERAL1', name: 'general', is_member: true, is_archived: false },
    { id: 'C0RANDOM01', name: 'random', is_member: true, is_archived: false },
    { id: 'C0PRIVATE1', name: 'secret', is_member: false, is_archived: false },
  ];
}

function slackOk(body: Record<string, unknown>): Reply {
  return json(200, { ok: true, ...body });
}

/** Slack reports most failures as HTTP 200 with ok:false. */
function slackError(error: string, status = 200): Reply {
  return json(status, { ok: false, error });
}

/** Cursors look like Slack's: base64 of "user:<next member id>". */
function encodeCursor(memberId: string): string {
  return Buffer.from(`user:${memberId}`).toString('base64');
}

function decodeCursor(cursor: string): string | undefined {
  const decoded = Buffer.from(cursor, 'base64').toString('utf8');
  return decoded.startsWith('user:') ? decoded.slice('user:'.length) : undefined;
}

export async function startSlackFake(options: SlackFakeOptions): Promise<SlackFake> {
  const state: SlackState = {
    teamId: SLACK_TEAM.id,
    members: options.members ?? defaultMembers(),
    channels: options.channels ?? defaultChannels(),
    messages: [],
    oauth: createOAuthProviderState(),
  };
  const oauth = new OAuthProvider(
    {
      ...options.oauth,
      clientId: options.oauth?.clientId ?? 'slack-client-id',
      clientSecret: options.oauth?.clientSecret ?? 'slack-client-secret',
      tokenShape: 'slack',
      slack: { teamId: SLACK_TEAM.id, teamName: SLACK_TEAM.name, botUserId: SLACK_BOT.userId, appId: SLACK_BOT.appId },
    },
    state.oauth,
  );
  oauth.seedToken(options.token, { scope: 'users:read,users:read.email,chat:write' });

  const router = new Router();
  oauth.mount(router, { authorize: '/oauth/v2/authorize', token: '/api/oauth.v2.access' });
  const api = new SlackApi(state, oauth);
  api.mount(router);

  const fake = await startFakeServer(state, (ctx) => router.dispatch(ctx) ?? slackError('unknown_method', 404));
  return {
    ...fake,
    oauth,
    addMember: (seed) => {
      const member = makeSlackMember(seed);
      state.members.push(member);
      return member;
    },
    expireToken: (accessToken) => oauth.expireToken(accessToken),
    throttleNext: (times = 1, seconds = 1) =>
      fake.failNext({ status: 429, times, headers: { 'retry-after': String(seconds) }, body: JSON.stringify({ ok: false, error: 'ratelimited' }) }),
  };
}

class SlackApi {
  private messageCounter = 0;

  constructor(
    private readonly state: SlackState,
    private readonly oauth: OAuthProvider,
  ) {}

  mount(router: Router): void {
    for (const method of ['GET', 'POST']) {
      router.on(
        method,
        '/api/users.list',
        this.authed((ctx) => this.usersList(ctx)),
      );
      router.on(
        method,
        '/api/users.info',
        this.authed((ctx) => this.usersInfo(ctx)),
      );
      router.on(
        method,
        '/api/auth.test',
        this.authed(() => this.authTest()),
      );
    }
    router.post(
      '/api/chat.postMessage',
      this.authed((ctx) => this.postMessage(ctx)),
    );
  }

  private authed(handler: Handler): Handler {
    return (ctx) => {
      const token = bearerToken(ctx.headers);
      if (!token) return slackError('not_authed');
      if (!this.oauth.verifyAccessToken(token)) return slackError('invalid_auth');
      return handler(ctx);
    };
  }

  /** Slack methods take arguments from the query string or the (form/JSON) body. */
  private args(ctx: RequestContext): Body {
    return { ...Object.fromEntries(ctx.query), ...parseBody(ctx) };
  }

  private usersList(ctx: RequestContext): Reply {
    let args: Body;
    try {
      args = this.args(ctx);
    } catch {
      return slackError('invalid_arguments');
    }
    const requested = parseIntParam(String(args['limit'] ?? '0')) ?? 0;
    const limit = requested <= 0 ? this.state.members.length : Math.min(requested, MAX_LIMIT);
    const cursor = typeof args['cursor'] === 'string' ? args['cursor'] : '';
    let start = 0;
    if (cursor !== '') {
      const memberId = decodeCursor(cursor);
      start = this.state.members.findIndex((m) => m.id === memberId);
      if (start < 0) return slackError('invalid_cursor');
    }
    const page = this.state.members.slice(start, start + limit);
    const next = this.state.members[start + limit];
    return slackOk({
      members: page,
      cache_ts: Math.floor(Date.now() / 1000),
      response_metadata: { next_cursor: next ? encodeCursor(next.id) : '' },
    });
  }

  private usersInfo(ctx: RequestContext): Reply {
    let args: Body;
    try {
      args = this.args(ctx);
    } catch {
      return slackError('invalid_arguments');
    }
    if (typeof args['user'] !== 'string' || args['user'] === '') return slackError('user_not_found');
    const member = this.state.members.find((m) => m.id === args['user']);
    return member ? slackOk({ user: member }) : slackError('user_not_found');
  }

  private authTest(): Reply {
    return slackOk({
      url: `https://${SLACK_TEAM.domain}.slack.com/`,
      team: SLACK_TEAM.name,
      user: SLACK_BOT.name,
      team_id: SLACK_TEAM.id,
      user_id: SLACK_BOT.userId,
      bot_id: SLACK_BOT.botId,
      is_enterprise_install: false,
    });
  }

  private postMessage(ctx: RequestContext): Reply {
    let args: Body;
    try {
      args = this.args(ctx);
    } catch (err) {
      if (err instanceof BodyParseError) return slackError('invalid_json');
      throw err;
    }
    const channelArg = typeof args['channel'] === 'string' ? args['channel'].replace(/^#/, '') : '';
    const channel = this.state.channels.find((c) => c.id === channelArg || c.name === channelArg);
    if (!channel) return slackError('channel_not_found');
    const text = typeof args['text'] === 'string' ? args['text'] : '';
    if (text === '' && args['blocks'] === undefined && args['attachments'] === undefined) return slackError('no_text');
    if (text.length > MAX_TEXT) return slackError('msg_too_long');
    if (channel.is_archived) return slackError('is_archived');
    if (!channel.is_member) return slackError('not_in_channel');

    const ts = this.nextTs();
    this.state.messages.push({ channel: channel.id, text, ts, user: SLACK_BOT.userId, request: args });
    return slackOk({
      channel: channel.id,
      ts,
      message: {
        type: 'message',
        text,
        user: SLACK_BOT.userId,
        bot_id: SLACK_BOT.botId,
        app_id: SLACK_BOT.appId,
        team: SLACK_TEAM.id,
        ts,
      },
    });
  }

  private nextTs(): string {
    this.messageCounter += 1;
    return `${Math.floor(Date.now() / 1000)}.${String(this.messageCounter).padStart(6, '0')}`;
  }
}
