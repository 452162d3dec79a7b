import { ActionError, createAction } from '../../sdk/index.js';
import { DocumentDownload, EXPORT_AS, FOLDER_MIME, IdEntity, type DriveFile } from './models.js';

/**
 * Where to download a document. The content itself is not returned: files can exceed the 2 MB
 * action output limit, so the caller GETs `/proxy` + `proxy.path`, which streams the body as
 * Google sends it. Binary files download with `alt=media`; Google-native documents export (Docs and
 * Slides as text/plain, Sheets as text/csv).
 */
export default createAction({
  description: 'Tells where to fetch the content of a Google Drive file through the proxy (streamed, any size)',
  endpoint: { method: 'GET', path: '/fetch-document', group: 'Documents' },
  input: IdEntity,
  output: DocumentDownload,
  scopes: ['https://www.googleapis.com/auth/drive.readonly'],
  async exec(ctx, input) {
    const id = encodeURIComponent(input.id);
    const res = await ctx.get<DriveFile>({
      endpoint: `/drive/v3/files/${id}`,
      params: { fields: 'id, name, mimeType, size', supportsAllDrives: 'true' },
      retries: 3,
    });
    const file = res.data;
    if (file.mimeType === FOLDER_MIME) throw new ActionError({ message: `${file.name} is a folder, not a document`, code: 'not_a_document', id: file.id });
    const exportAs = EXPORT_AS[file.mimeType];
    if (file.mimeType.startsWith('application/vnd.google-apps.') && !exportAs) {
      throw new ActionError({ message: `Google Drive cannot export ${file.mimeType}`, code: 'unsupported_mime_type', id: file.id });
    }
    const path = exportAs ? `/drive/v3/files/${id}/export?mimeType=${encodeURIComponent(exportAs)}` : `/drive/v3/files/${id}?alt=media&supportsAllDrives=true`;
    return {
      id: file.id,
      title: file.name,
      mimeType: file.mimeType,
      size: file.size !== undefined ? Number(file.size) : null,
      proxy: {
        method: 'GET' as const,
        path,
        contentType: exportAs ?? file.mimeType,
        stripBom: exportAs === 'text/plain' && file.mimeType === 'application/vnd.google-apps.document',
      },
    };
  },
});
