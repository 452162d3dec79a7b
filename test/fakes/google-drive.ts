/**
 * @module Fake Google Drive v3 (files.list / get / media / export, and simple uploads:
 * `POST /upload/drive/v3/files?uploadType=media`, the body the file's bytes, its Content-Type the
 * file's type, needing a `drive` or `drive.file` scope) plus Google-style OAuth on the same origin
 * (FACTS.md §4).
 */
import { OAuthProvider, createOAuthProviderState } from './oauth-provider.js';
import type { OAuthProviderOptions, OAuthProviderState } from './oauth-provider.js';
import { QueryError, parseDriveQuery, parseFields, projectFields, unknownFields } from './google-drive-query.js';
import type { FieldTree } from './google-drive-query.js';
import { Router, bearerToken, deterministicStream, escapeHtml, json, parseIntParam, randomToken, startFakeServer } from './server.js';
import type { FakeServer, Handler, Reply, RequestContext } from './server.js';

export const FOLDER_MIME = 'application/vnd.google-apps.folder';
export const GOOGLE_DOC_MIME = 'application/vnd.google-apps.document';
export const GOOGLE_SHEET_MIME = 'application/vnd.google-apps.spreadsheet';
export const GOOGLE_SLIDES_MIME = 'application/vnd.google-apps.presentation';

export interface DriveFile {
  id: string;
  name: string;
  mimeType: string;
  parents: string[];
  createdTime: string;
  modifiedTime: string;
  trashed: boolean;
  starred: boolean;
  webViewLink: string;
  /** Binary content, or the text of a Google-native document (what export returns). */
  content?: string | Buffer;
  /** Binary content generated on the fly: this many deterministic bytes (see server.ts). */
  generatedSize?: number;
}

export interface DriveState {
  /** Id of "My Drive"; `'root' in parents` resolves to it. */
  rootId: string;
  files: DriveFile[];
  oauth: OAuthProviderState;
}

export interface DriveFileSeed {
  name: string;
  mimeType?: string;
  /** Default: the root folder. */
  parentId?: string;
  id?: string;
  content?: string | Buffer;
  generatedSize?: number;
  modifiedTime?: string;
  trashed?: boolean;
}

export interface GoogleDriveFakeOptions {
  /** Access token accepted without going through OAuth. */
  token: string;
  oauth?: Partial<
    Pick<OAuthProviderOptions, 'clientId' | 'clientSecret' | 'accessTokenTtlSeconds' | 'rotateRefreshTokens' | 'autoApprove' | 'redirectUris' | 'requirePkce'>
  >;
}

export interface GoogleDriveFake extends FakeServer<DriveState> {
  oauth: OAuthProvider;
  addFolder(name: string, parentId?: string): DriveFile;
  addFile(seed: DriveFileSeed): DriveFile;
  expireToken(accessToken?: string): void;
}

const DEFAULT_PAGE_SIZE = 100;
const MAX_PAGE_SIZE = 1000;
const NATIVE_PREFIX = 'application/vnd.google-apps.';
const EXPORTS: Record<string, string[]> = {
  [GOOGLE_DOC_MIME]: ['text/plain', 'text/html', 'text/markdown'],
  [GOOGLE_SHEET_MIME]: ['text/csv', 'text/plain'],
  [GOOGLE_SLIDES_MIME]: ['text/plain'],
};
const FILE_FIELDS = new Set([
  'kind',
  'id',
  'name',
  'mimeType',
  'description',
  'starred',
  'trashed',
  'explicitlyTrashed',
  'parents',
  'properties',
  'appProperties',
  'spaces',
  'version',
  'webContentLink',
  'webViewLink',
  'iconLink',
  'hasThumbnail',
  'thumbnailLink',
  'viewedByMe',
  'viewedByMeTime',
  'createdTime',
  'modifiedTime',
  'modifiedByMeTime',
  'modifiedByMe',
  'sharedWithMeTime',
  'owners',
  'driveId',
  'lastModifyingUser',
  'shared',
  'ownedByMe',
  'capabilities',
  'permissions',
  'permissionIds',
  'folderColorRgb',
  'originalFilename',
  'fullFileExtension',
  'fileExtension',
  'md5Checksum',
  'sha1Checksum',
  'sha256Checksum',
  'size',
  'quotaBytesUsed',
  'headRevisionId',
  'exportLinks',
  'shortcutDetails',
  'resourceKey',
]);
const WRITE_SCOPES = new Set(['https://www.googleapis.com/auth/drive', 'https://www.googleapis.com/auth/drive.file']);
const LIST_FIELDS = new Set(['kind', 'nextPageToken', 'incompleteSearch', 'files']);

interface GoogleErrorDetail {
  reason: string;
  location?: string;
  locationType?: string;
}

function googleError(code: number, message: string, detail: GoogleErrorDetail, status?: string): Reply {
  return json(code, {
    error: { code, message, errors: [{ message, domain: 'global', ...detail }], ...(status ? { status } : {}) },
  });
}

function invalidValue(location: string, message = 'Invalid Value'): Reply {
  return googleError(400, message, { reason: 'invalid', location, locationType: 'parameter' });
}

function fileNotFound(id: string): Reply {
  return googleError(404, `File not found: ${id}.`, { reason: 'notFound', location: 'fileId', locationType: 'parameter' });
}

function webViewLink(id: string, mimeType: string): string {
  if (mimeType === FOLDER_MIME) return `https://drive.google.com/drive/folders/${id}`;
  if (mimeType === GOOGLE_DOC_MIME) return `https://docs.google.com/document/d/${id}/edit?usp=drivesdk`;
  if (mimeType === GOOGLE_SHEET_MIME) return `https://docs.google.com/spreadsheets/d/${id}/edit?usp=drivesdk`;
  return `https://drive.google.com/file/d/${id}/view?usp=drivesdk`;
}

function isNative(file: DriveFile): boolean {
  return file.mimeType.startsWith(NATIVE_PREFIX);
}

function binarySize(file: DriveFile): number | undefined {
  if (file.generatedSize !== undefined) return file.generatedSize;
  if (file.content === undefined) return undefined;
  return typeof file.content === 'string' ? Buffer.byteLength(file.content) : file.content.length;
}

/** The complete resource; `fields` selects from it. */
function renderFile(file: DriveFile): Record<string, unknown> {
  const size = isNative(file) ? undefined : binarySize(file);
  return {
    kind: 'drive#file',
    id: file.id,
    name: file.name,
    mimeType: file.mimeType,
    parents: [...file.parents],
    webViewLink: file.webViewLink,
    createdTime: file.createdTime,
    modifiedTime: file.modifiedTime,
    trashed: file.trashed,
    starred: file.starred,
    ...(size !== undefined ? { size: String(size) } : {}),
  };
}

function defaultFileView(file: DriveFile): Record<string, unknown> {
  return { kind: 'drive#file', id: file.id, name: file.name, mimeType: file.mimeType };
}

function encodePageToken(offset: number): string {
  return Buffer.from(JSON.stringify({ o: offset })).toString('base64url');
}

function decodePageToken(token: string): number | undefined {
  try {
    const value: unknown = JSON.parse(Buffer.from(token, 'base64url').toString('utf8'));
    const offset = typeof value === 'object' && value !== null ? (value as { o?: unknown }).o : undefined;
    return typeof offset === 'number' && Number.isInteger(offset) && offset >= 0 ? offset : undefined;
  } catch {
    return undefined;
  }
}

function driveFileId(): string {
  return `1${randomToken(24).replace(/[-_]/g, 'x')}`;
}

// ---------------------------------------------------------------------------------------------

export async function startGoogleDriveFake(options: GoogleDriveFakeOptions): Promise<GoogleDriveFake> {
  const now = new Date().toISOString();
  const state: DriveState = { rootId: '0AFakeRootFolderUk9PVA', files: [], oauth: createOAuthProviderState() };
  const oauth = new OAuthProvider(
    {
      ...options.oauth,
      clientId: options.oauth?.clientId ?? 'google-client-id.apps.googleusercontent.com',
      clientSecret: options.oauth?.clientSecret ?? 'google-client-secret',
      tokenShape: 'standard',
      issueRefreshTokens: true,
      refreshTokenRequiresOfflineAccess: true,
      defaultScope: 'https://www.googleapis.com/auth/drive.readonly',
    },
    state.oauth,
  );
  oauth.seedToken(options.token, { scope: 'https://www.googleapis.com/auth/drive.readonly' });

  const addFile = (seed: DriveFileSeed): DriveFile => {
    const id = seed.id ?? driveFileId();
    const mimeType = seed.mimeType ?? 'application/octet-stream';
    const file: DriveFile = {
      id,
      name: seed.name,
      mimeType,
      parents: [seed.parentId ?? state.rootId],
      createdTime: seed.modifiedTime ?? now,
      modifiedTime: seed.modifiedTime ?? now,
      trashed: seed.trashed ?? false,
      starred: false,
      webViewLink: webViewLink(id, mimeType),
      ...(seed.content !== undefined ? { content: seed.content } : {}),
      ...(seed.generatedSize !== undefined ? { generatedSize: seed.generatedSize } : {}),
    };
    state.files.push(file);
    return file;
  };

  const router = new Router();
  oauth.mount(router, { authorize: '/o/oauth2/v2/auth', token: '/token', userinfo: '/oauth2/v3/userinfo' });
  new DriveApi(state, oauth).mount(router);
  const notFound: Handler = (ctx) => googleError(404, `Method not found: ${ctx.method} ${ctx.path}`, { reason: 'notFound' }, 'NOT_FOUND');
  const fake = await startFakeServer(state, (ctx) => router.dispatch(ctx) ?? notFound(ctx));

  return {
    ...fake,
    oauth,
    addFolder: (name, parentId) => addFile({ name, mimeType: FOLDER_MIME, ...(parentId ? { parentId } : {}) }),
    addFile,
    expireToken: (accessToken) => oauth.expireToken(accessToken),
  };
}

class DriveApi {
  constructor(
    private readonly state: DriveState,
    private readonly oauth: OAuthProvider,
  ) {}

  mount(router: Router): void {
    router
      .get(
        '/drive/v3/files',
        this.authed((ctx) => this.list(ctx)),
      )
      .get(
        '/drive/v3/files/:id',
        this.authed((ctx) => this.get(ctx)),
      )
      .get(
        '/drive/v3/files/:id/export',
        this.authed((ctx) => this.export(ctx)),
      )
      .post(
        '/upload/drive/v3/files',
        this.authed((ctx) => this.upload(ctx)),
      );
  }

  /** A simple upload: a new file named "Untitled" in My Drive, with the request's bytes. */
  private upload(ctx: RequestContext): Reply {
    const scopes = (this.oauth.verifyAccessToken(bearerToken(ctx.headers))?.scope ?? '').split(' ');
    if (!scopes.some((s) => WRITE_SCOPES.has(s))) {
      return googleError(403, 'Request had insufficient authentication scopes.', { reason: 'insufficientPermissions' }, 'PERMISSION_DENIED');
    }
    if (ctx.query.get('uploadType') !== 'media') return invalidValue('uploadType');
    const now = new Date().toISOString();
    const id = driveFileId();
    const file: DriveFile = {
      id,
      name: 'Untitled',
      mimeType: ctx.headers['content-type']?.split(';')[0]?.trim() || 'application/octet-stream',
      parents: [this.state.rootId],
      createdTime: now,
      modifiedTime: now,
      trashed: false,
      starred: false,
      webViewLink: '',
      content: Buffer.from(ctx.rawBody),
    };
    file.webViewLink = webViewLink(id, file.mimeType);
    this.state.files.push(file);
    return json(200, defaultFileView(file));
  }

  private authed(handler: Handler): Handler {
    return (ctx) => {
      if (this.oauth.verifyAccessToken(bearerToken(ctx.headers))) return handler(ctx);
      return googleError(
        401,
        'Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential. See https://developers.google.com/identity/sign-in/web/devconsole-project.',
        { reason: 'authError', location: 'Authorization', locationType: 'header' },
        'UNAUTHENTICATED',
      );
    };
  }

  private find(id: string | undefined): DriveFile | undefined {
    if (id === 'root' || id === this.state.rootId) return this.rootFolder();
    return this.state.files.find((f) => f.id === id);
  }

  private rootFolder(): DriveFile {
    const id = this.state.rootId;
    const epoch = '2020-01-01T00:00:00.000Z';
    return {
      id,
      name: 'My Drive',
      mimeType: FOLDER_MIME,
      parents: [],
      createdTime: epoch,
      modifiedTime: epoch,
      trashed: false,
      starred: false,
      webViewLink: webViewLink(id, FOLDER_MIME),
    };
  }

  /** Parses `fields` (tree undefined when absent), or gives the 400 reply for a bad selection. */
  private fieldTree(ctx: RequestContext, allowed: ReadonlySet<string>, nested?: string): { tree: FieldTree | undefined } | { error: Reply } {
    const spec = ctx.query.get('fields');
    if (spec === null) return { tree: undefined };
    try {
      const tree = parseFields(spec);
      const inner = nested ? tree.get(nested) : undefined;
      const bad = [...unknownFields(tree, allowed), ...(inner ? unknownFields(inner, FILE_FIELDS) : [])];
      return bad.length ? { error: invalidValue('fields', `Invalid field selection ${bad[0]}`) } : { tree };
    } catch (err) {
      if (err instanceof QueryError) return { error: invalidValue('fields', err.message) };
      throw err;
    }
  }

  private list(ctx: RequestContext): Reply {
    const selection = this.fieldTree(ctx, LIST_FIELDS, 'files');
    if ('error' in selection) return selection.error;
    const fields = selection.tree;

    const pageSizeRaw = ctx.query.get('pageSize');
    const pageSize = pageSizeRaw === null ? DEFAULT_PAGE_SIZE : parseIntParam(pageSizeRaw);
    if (pageSize === undefined || pageSize < 1) return invalidValue('pageSize');
    const pageToken = ctx.query.get('pageToken');
    const offset = pageToken ? decodePageToken(pageToken) : 0;
    if (offset === undefined) return invalidValue('pageToken');

    let matches = this.state.files;
    const q = ctx.query.get('q');
    if (q) {
      try {
        matches = matches.filter(parseDriveQuery(q, this.state.rootId));
      } catch (err) {
        if (err instanceof QueryError) return invalidValue('q');
        throw err;
      }
    }
    const end = offset + Math.min(pageSize, MAX_PAGE_SIZE);
    const page = matches.slice(offset, end);
    const full = {
      kind: 'drive#fileList',
      ...(end < matches.length ? { nextPageToken: encodePageToken(end) } : {}),
      incompleteSearch: false,
      files: page.map(fields ? renderFile : defaultFileView),
    };
    return json(200, fields ? projectFields(full, fields) : full);
  }

  private get(ctx: RequestContext): Reply {
    const file = this.find(ctx.params['id']);
    if (!file) return fileNotFound(ctx.params['id'] ?? '');
    if (ctx.query.get('alt') === 'media') return this.media(file);
    const selection = this.fieldTree(ctx, FILE_FIELDS);
    if ('error' in selection) return selection.error;
    return json(200, selection.tree ? projectFields(renderFile(file), selection.tree) : defaultFileView(file));
  }

  private media(file: DriveFile): Reply {
    if (isNative(file) || binarySize(file) === undefined) {
      return googleError(403, 'Only files with binary content can be downloaded. Use Export with Docs Editors files.', {
        reason: 'fileNotDownloadable',
        location: 'alt',
        locationType: 'parameter',
      });
    }
    const size = binarySize(file) as number;
    const headers = { 'content-type': file.mimeType, 'content-length': String(size) };
    if (file.generatedSize !== undefined) return { status: 200, headers, body: deterministicStream(file.generatedSize) };
    return { status: 200, headers, body: file.content ?? '' };
  }

  private export(ctx: RequestContext): Reply {
    const file = this.find(ctx.params['id']);
    if (!file) return fileNotFound(ctx.params['id'] ?? '');
    const mimeType = ctx.query.get('mimeType');
    if (!mimeType) {
      return googleError(400, 'Required parameter: mimeType', { reason: 'required', location: 'mimeType', locationType: 'parameter' });
    }
    const supported = EXPORTS[file.mimeType];
    if (!supported) {
      return googleError(403, 'Export only supports Docs Editors files.', { reason: 'fileNotExportable' });
    }
    if (!supported.includes(mimeType)) {
      return googleError(400, 'The requested conversion is not supported.', { reason: 'badRequest', location: 'convertTo', locationType: 'parameter' });
    }
    const content = typeof file.content === 'string' ? file.content : (file.content?.toString('utf8') ?? '');
    return { status: 200, headers: { 'content-type': `${mimeType}; charset=utf-8` }, body: exportBody(file, mimeType, content) };
  }
}

function exportBody(file: DriveFile, mimeType: string, content: string): string {
  if (mimeType === 'text/html') {
    return `<html><head><title>${escapeHtml(file.name)}</title></head><body><p>${escapeHtml(content)}</p></body></html>`;
  }
  // Google prefixes plain-text exports of Docs with a UTF-8 byte order mark; callers must strip it.
  if (mimeType === 'text/plain' && file.mimeType === GOOGLE_DOC_MIME) return `\ufeff${content}`;
  return content;
}
