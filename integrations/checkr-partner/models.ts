import { z } from 'zod';
import { checkStatusOf, type CheckSnapshot } from './status.js';

/**
 * `BackgroundCheck`: Nango's template fields (id = invitation id, status = invitation status,
 * service_key = package, url = invitation uri), plus what Switchyard follows after the trigger:
 * the report, its result and the overall `check_status`.
 */
export const BackgroundCheck = z.object({
  id: z.string(),
  status: z.string(),
  service_key: z.string(),
  url: z.string(),
  candidate_id: z.string(),
  created_at: z.string(),
  expires_at: z.string().optional(),
  completed_at: z.string().nullable().optional(),
  report_id: z.string().nullable().optional(),
  report_status: z.string().nullable().optional(),
  result: z.string().nullable().optional(),
  check_status: z.string().optional(),
});
export type BackgroundCheck = z.infer<typeof BackgroundCheck>;

export const CheckrScreening = z.object({ type: z.string(), subtype: z.string().nullable() });

export const CheckrService = z.object({
  id: z.string(),
  object: z.string(),
  uri: z.string(),
  apply_url: z.string(),
  created_at: z.string(),
  deleted_at: z.string().nullable(),
  name: z.string(),
  slug: z.string(),
  price: z.number(),
  drug_screening_price: z.number().nullable(),
  /** Nango's model spells Checkr's `enabled_exams` this way; both are given. */
  enabled_examples: z.array(z.string()),
  enabled_exams: z.array(z.string()),
  requires_observed_drug_test: z.boolean(),
  screenings: z.array(CheckrScreening),
  node: z.string().optional(),
});
export type CheckrService = z.infer<typeof CheckrService>;

export const CheckrServicesResponse = z.object({ services: z.array(CheckrService) });

export const BackgroundCheckParameter = z.object({ key: z.string(), type: z.string(), title: z.string(), description: z.string(), required: z.boolean() });
export const BackgroundCheckParameterResponse = z.object({ parameters: z.array(BackgroundCheckParameter) });

export const TriggerBackgroundCheckInput = z.object({
  country: z.string().min(1, 'country is required'),
  state: z.string().optional(),
  city: z.string().optional(),
  service_key: z.string().min(1, 'service_key (the package slug) is required'),
  candidate_id: z.string().min(1, 'candidate_id is required'),
  node: z.string().optional(),
  tags: z.array(z.string()).optional(),
});
export type TriggerBackgroundCheckInput = z.infer<typeof TriggerBackgroundCheckInput>;

export const TriggeredBackgroundCheck = z.object({
  applicationId: z.string(),
  url: z.string(),
  status: z.string(),
  completed_at: z.string().nullable(),
  candidate_id: z.string(),
  service_key: z.string(),
  deleted_at: z.string().nullable(),
  created_at: z.string(),
  updated_at: z.string(),
});

export const Location = z.object({ country: z.string(), state: z.string().optional(), city: z.string().optional() });

export const CreateCandidate = z
  .object({
    country: z.string().min(1, 'country is required'),
    state: z.string().optional(),
    city: z.string().optional(),
    first_name: z.string().min(1, 'first_name is required'),
    middle_name: z.string().optional(),
    no_middle_name: z.boolean().optional(),
    last_name: z.string().optional(),
    email: z.email(),
    phone: z.string().min(1, 'phone is required'),
    zipcode: z.string().optional(),
    dob: z.string().optional(),
    ssn: z.string().optional(),
    driver_license_number: z.string().optional(),
    driver_license_state: z.string().optional(),
    /** Accepted for compatibility; the work location sent is built from country, state and city. */
    work_locations: z.array(Location).optional(),
  })
  .refine((c) => Boolean(c.middle_name) || c.no_middle_name !== undefined, {
    message: 'middle_name is missing, or set no_middle_name (boolean)',
    path: ['middle_name'],
  });

/** Checkr's candidate, as returned (its fields vary with the account's settings). */
export const Candidate = z.looseObject({ id: z.string(), object: z.string(), uri: z.string(), email: z.string() });

/** The fields of a Checkr invitation the scripts read. */
export interface CheckrInvitation {
  id: string;
  uri: string;
  status: string;
  package: string;
  candidate_id: string;
  created_at: string;
  updated_at?: string;
  expires_at?: string | null;
  completed_at: string | null;
  deleted_at: string | null;
  report_id: string | null;
}

export interface CheckrReport {
  id: string;
  status: string;
  result: string | null;
}

export interface CheckrPackage extends Omit<CheckrService, 'enabled_examples' | 'node'> {
  enabled_exams: string[];
}

export function snapshotOf(invitation: CheckrInvitation, report: CheckrReport | null): CheckSnapshot {
  return {
    invitationId: invitation.id,
    invitationStatus: invitation.status,
    invitationDeleted: Boolean(invitation.deleted_at),
    reportId: report?.id ?? invitation.report_id ?? null,
    reportStatus: report?.status ?? null,
    result: report?.result ?? null,
  };
}

/** The report fields of a record, from a snapshot. */
export function checkFields(s: CheckSnapshot): Pick<BackgroundCheck, 'report_id' | 'report_status' | 'result' | 'check_status'> {
  return { report_id: s.reportId, report_status: s.reportStatus, result: s.result, check_status: checkStatusOf(s) };
}

export function toBackgroundCheck(invitation: CheckrInvitation, report: CheckrReport | null = null): BackgroundCheck {
  return {
    id: invitation.id,
    status: invitation.status,
    service_key: invitation.package,
    url: invitation.uri,
    candidate_id: invitation.candidate_id,
    created_at: invitation.created_at,
    ...(invitation.expires_at ? { expires_at: invitation.expires_at } : {}),
    completed_at: invitation.completed_at ?? null,
    ...checkFields(snapshotOf(invitation, report)),
  };
}

export function toService(pkg: CheckrPackage, node?: string): CheckrService {
  return {
    id: pkg.id,
    object: pkg.object,
    uri: pkg.uri,
    apply_url: pkg.apply_url,
    created_at: pkg.created_at,
    deleted_at: pkg.deleted_at ?? null,
    name: pkg.name,
    slug: pkg.slug,
    price: pkg.price,
    drug_screening_price: pkg.drug_screening_price ?? null,
    enabled_examples: pkg.enabled_exams ?? [],
    enabled_exams: pkg.enabled_exams ?? [],
    requires_observed_drug_test: pkg.requires_observed_drug_test ?? false,
    screenings: pkg.screenings ?? [],
    ...(node ? { node } : {}),
  };
}

/** Checkr's list endpoints: `data` and a `next_href` (absolute, on the API's origin, or null at the end). */
export const LINK_PAGINATION = { type: 'link', response_path: 'data', link_path_in_response_body: 'next_href' } as const;
