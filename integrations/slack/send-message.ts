import { ActionError, createAction } from '../../sdk/index.js';
import { SendMessageInput, SendMessageOutput, type SlackEnvelope } from './models.js';

interface PostMessageAnswer extends SlackEnvelope {
  channel?: string;
  ts?: string;
  message?: { text?: string };
}

/** `chat.postMessage`. Slack's `ok:false` answers (HTTP 200) become an ActionError carrying Slack's error code. */
export default createAction({
  description: 'An action that sends a message to a slack channel.',
  endpoint: { method: 'POST', path: '/send-message' },
  input: SendMessageInput,
  output: SendMessageOutput,
  scopes: ['chat:write'],
  async exec(ctx, input) {
    const res = await ctx.post<PostMessageAnswer>({
      endpoint: '/chat.postMessage',
      data: { channel: input.channel, text: input.text },
      headers: { 'content-type': 'application/json; charset=utf-8' },
    });
    const answer = res.data;
    if (!answer.ok) {
      const code = answer.error ?? 'unknown_error';
      throw new ActionError({ message: `Slack refused chat.postMessage: ${code}`, code, slack_error: code, channel: input.channel });
    }
    return {
      ok: true,
      ...(answer.channel ? { channel: answer.channel } : {}),
      ...(answer.ts ? { ts: answer.ts } : {}),
      ...(answer.message?.text !== undefined ? { message: answer.message.text } : {}),
      ...(answer.warning ? { warning: answer.warning } : {}),
      raw_json: JSON.stringify(answer),
    };
  },
});
