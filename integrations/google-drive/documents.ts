import { createSync } from '../../sdk/index.js';
import { Document, DocumentMetadata, FOLDER_MIME, toDocument, type DriveFile } from './models.js';

const FILE_FIELDS = 'id, name, mimeType, webViewLink, parents, modifiedTime';
const BATCH = 100;

/**
 * The files named in the connection's metadata and every file under its folders (subfolders walked
 * breadth-first, each folder once), saved 100 at a time. Not started automatically: set the
 * metadata first (`POST /connections/metadata`), then start the sync.
 */
export default createSync({
  description: 'Sync the metadata of the files and folders named in the connection metadata ({"files": [ids], "folders": [ids]}), folders recursively',
  frequency: 'every day',
  autoStart: false,
  syncType: 'full',
  endpoints: [{ method: 'GET', path: '/documents', group: 'Documents' }],
  scopes: ['https://www.googleapis.com/auth/drive.readonly'],
  models: { Document },
  metadata: DocumentMetadata,
  async exec(ctx) {
    const parsed = DocumentMetadata.safeParse((await ctx.getMetadata()) ?? {});
    const files = parsed.success ? (parsed.data.files ?? []) : [];
    const folders = parsed.success ? (parsed.data.folders ?? []) : [];
    if (!parsed.success || (files.length === 0 && folders.length === 0)) {
      throw new Error(
        'Metadata for files or folders is required: set the connection metadata to {"files": ["<file id>", …]} and/or {"folders": ["<folder id>", …]} (POST /connections/metadata), then run the sync again.',
      );
    }

    let batch: Document[] = [];
    const flush = async () => {
      if (batch.length) await ctx.batchSave(batch, 'Document');
      batch = [];
    };
    const save = async (doc: Document) => {
      batch.push(doc);
      if (batch.length >= BATCH) await flush();
    };

    const queue = [...folders];
    const visited = new Set<string>();
    while (queue.length) {
      const folderId = queue.shift()!;
      if (visited.has(folderId)) continue;
      visited.add(folderId);
      for await (const page of ctx.paginate<DriveFile>({
        endpoint: '/drive/v3/files',
        params: {
          q: `('${folderId.replace(/['\\]/g, '\\$&')}' in parents) and trashed = false`,
          fields: `files(${FILE_FIELDS}), nextPageToken`,
          corpora: 'allDrives',
          includeItemsFromAllDrives: 'true',
          supportsAllDrives: 'true',
        },
        retries: 10,
        paginate: {
          type: 'cursor',
          response_path: 'files',
          cursor_path_in_response: 'nextPageToken',
          cursor_name_in_request: 'pageToken',
          limit: BATCH,
          limit_name_in_request: 'pageSize',
        },
      })) {
        for (const file of page) {
          if (file.mimeType === FOLDER_MIME) queue.push(file.id);
          else await save(toDocument(file));
        }
      }
    }

    for (const id of files) {
      try {
        const res = await ctx.get<DriveFile>({
          endpoint: `/drive/v3/files/${encodeURIComponent(id)}`,
          params: { fields: FILE_FIELDS, supportsAllDrives: 'true' },
          retries: 10,
        });
        await save(toDocument(res.data));
      } catch (err) {
        const e = err as { name?: string; status?: number };
        // A file removed or no longer shared is skipped (and shows as deleted); anything else fails the run.
        if (e.name !== 'UpstreamHttpError' || (e.status !== 404 && e.status !== 403)) throw err;
        ctx.log(`file ${id} is not accessible (${e.status}); skipped`);
      }
    }
    await flush();
  },
});
