import { z } from 'zod';

export const FOLDER_MIME = 'application/vnd.google-apps.folder';

/** Connection metadata naming what to sync: file ids and folder ids (walked recursively). */
export const DocumentMetadata = z.object({ files: z.array(z.string()).optional(), folders: z.array(z.string()).optional() });
export type DocumentMetadata = z.infer<typeof DocumentMetadata>;

export const Document = z.object({ id: z.string(), url: z.string(), title: z.string(), mimeType: z.string(), updatedAt: z.string() });
export type Document = z.infer<typeof Document>;

export const IdEntity = z.object({ id: z.string().min(1) });

/** What fetch-document answers: where to GET the content through `/proxy` (it may exceed the 2 MB action output limit). */
export const DocumentDownload = z.object({
  id: z.string(),
  title: z.string(),
  mimeType: z.string(),
  /** Bytes, for binary files; null for Google-native documents (exported on the fly). */
  size: z.number().nullable(),
  proxy: z.object({
    method: z.literal('GET'),
    /** Path and query to append to `/proxy`, with the Connection-Id and Provider-Config-Key headers. */
    path: z.string(),
    /** Content type of the body that path returns. */
    contentType: z.string(),
    /** Google prefixes plain-text exports of Docs with a UTF-8 byte order mark: strip it. */
    stripBom: z.boolean(),
  }),
});

/** The fields of a Drive file the scripts read. */
export interface DriveFile {
  id: string;
  name: string;
  mimeType: string;
  webViewLink?: string;
  modifiedTime?: string;
  size?: string;
}

export function toDocument(f: DriveFile): Document {
  return { id: f.id, url: f.webViewLink ?? '', title: f.name, mimeType: f.mimeType, updatedAt: f.modifiedTime ?? '' };
}

/** How Google-native documents are exported (Drive cannot download them as they are). */
export const EXPORT_AS: Record<string, string> = {
  'application/vnd.google-apps.document': 'text/plain',
  'application/vnd.google-apps.spreadsheet': 'text/csv',
  'application/vnd.google-apps.presentation': 'text/plain',
};
