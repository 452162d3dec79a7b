import { z } from 'zod';

/** The sample app's `SlackUser`: the member's fields, and the member as Slack sent it in `raw_json`. */
export const SlackUser = z.object({
  id: z.string(),
  team_id: z.string(),
  name: z.string(),
  deleted: z.boolean(),
  tz: z.string(),
  tz_label: z.string(),
  tz_offset: z.number(),
  profile: z.object({
    avatar_hash: z.string(),
    real_name: z.string().nullable(),
    display_name: z.string().nullable(),
    real_name_normalized: z.string().nullable(),
    display_name_normalized: z.string().nullable(),
    email: z.string().nullable(),
    image_original: z.string().nullable(),
  }),
  is_admin: z.boolean(),
  is_owner: z.boolean(),
  is_primary_owner: z.boolean(),
  is_restricted: z.boolean(),
  is_ultra_restricted: z.boolean(),
  is_bot: z.boolean(),
  updated: z.number(),
  is_app_user: z.boolean(),
  raw_json: z.string(),
});
export type SlackUser = z.infer<typeof SlackUser>;

export const SendMessageInput = z.object({ channel: z.string().min(1), text: z.string().min(1) });

export const SendMessageOutput = z.object({
  ok: z.boolean(),
  channel: z.string().optional(),
  ts: z.string().optional(),
  message: z.string().optional(),
  warning: z.string().optional(),
  error: z.string().optional(),
  raw_json: z.string(),
});

/** The member fields of `users.list` the sync reads. */
export interface SlackMember {
  id: string;
  team_id: string;
  name: string;
  deleted: boolean;
  tz?: string;
  tz_label?: string;
  tz_offset?: number;
  profile: {
    avatar_hash?: string;
    real_name?: string;
    display_name?: string;
    real_name_normalized?: string;
    display_name_normalized?: string;
    email?: string;
    image_original?: string;
    is_custom_image?: boolean;
  };
  is_admin?: boolean;
  is_owner?: boolean;
  is_primary_owner?: boolean;
  is_restricted?: boolean;
  is_ultra_restricted?: boolean;
  is_bot: boolean;
  is_app_user?: boolean;
  updated: number;
}

/** Every Web API answer: HTTP 200 with `ok`, and `error` when ok is false. */
export interface SlackEnvelope {
  ok: boolean;
  error?: string;
  warning?: string;
}

export function toSlackUser(m: SlackMember): SlackUser {
  const p = m.profile ?? {};
  return {
    id: m.id,
    team_id: m.team_id,
    name: m.name,
    deleted: m.deleted,
    tz: m.tz ?? '',
    tz_label: m.tz_label ?? '',
    tz_offset: m.tz_offset ?? 0,
    profile: {
      avatar_hash: p.avatar_hash ?? '',
      real_name: p.real_name || null,
      display_name: p.display_name || null,
      real_name_normalized: p.real_name_normalized || null,
      display_name_normalized: p.display_name_normalized || null,
      email: p.email || null,
      image_original: p.is_custom_image ? (p.image_original ?? null) : null,
    },
    is_admin: m.is_admin ?? false,
    is_owner: m.is_owner ?? false,
    is_primary_owner: m.is_primary_owner ?? false,
    is_restricted: m.is_restricted ?? false,
    is_ultra_restricted: m.is_ultra_restricted ?? false,
    is_bot: m.is_bot,
    updated: m.updated,
    is_app_user: m.is_app_user ?? false,
    raw_json: JSON.stringify(m),
  };
}
