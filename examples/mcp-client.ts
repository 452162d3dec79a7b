/**
 * An agent-side MCP client for Switchyard: lists the tools of a connection and calls one, with the
 * official MCP TypeScript SDK. Two ways in:
 *
 *   # with the environment's secret key and one connection
 *   SWITCHYARD_URL=http://localhost:3003 SWITCHYARD_SECRET_KEY=… CONNECTION_ID=acme PROVIDER_CONFIG_KEY=metabase \
 *     npx tsx examples/mcp-client.ts [tool] ['{"json":"input"}']
 *
 *   # with an agent session (the backend creates it; the agent only ever sees its token)
 *   SWITCHYARD_URL=… SWITCHYARD_SECRET_KEY=… AGENT_SESSION=1 CONNECTION_ID=acme PROVIDER_CONFIG_KEY=metabase \
 *     npx tsx examples/mcp-client.ts metabase__fetch-user '{"id":1}'
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

const base = process.env.SWITCHYARD_URL ?? 'http://localhost:3003';
const secretKey = process.env.SWITCHYARD_SECRET_KEY;
const connectionId = process.env.CONNECTION_ID ?? 'acme';
const providerConfigKey = process.env.PROVIDER_CONFIG_KEY ?? 'metabase';
if (!secretKey) throw new Error('Set SWITCHYARD_SECRET_KEY');

/** Your backend's side: an agent session for one end user and one connection, expiring in 15 minutes. */
async function createAgentSession(): Promise<{ token: string; mcp_url: string }> {
  const res = await fetch(`${base}/agent-sessions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${secretKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      end_user: { id: 'user-42' },
      connections: [{ provider_config_key: providerConfigKey, connection_id: connectionId }],
      expires_in: 900,
    }),
  });
  if (res.status !== 201) throw new Error(`POST /agent-sessions answered ${res.status}: ${await res.text()}`);
  return ((await res.json()) as { data: { token: string; mcp_url: string } }).data;
}

async function main(): Promise<void> {
  let url = `${base}/mcp`;
  let headers: Record<string, string> = { authorization: `Bearer ${secretKey}`, 'connection-id': connectionId, 'provider-config-key': providerConfigKey };
  if (process.env.AGENT_SESSION) {
    const session = await createAgentSession();
    url = session.mcp_url;
    headers = { authorization: `Bearer ${session.token}` };
  }

  const client = new Client({ name: 'switchyard-example', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } }));

  const { tools } = await client.listTools();
  for (const tool of tools) console.log(`${tool.name}: ${tool.description ?? ''}`);

  const [name, input] = process.argv.slice(2);
  if (name) {
    const result = await client.callTool({ name, arguments: input ? (JSON.parse(input) as Record<string, unknown>) : {} });
    console.log(result.isError ? 'tool error:' : 'result:', JSON.stringify(result.structuredContent ?? result.content, null, 2));
  }
  await client.close();
}

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
