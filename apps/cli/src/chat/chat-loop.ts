/**
 * The line loop of `cookbook chat` over any input and output streams (a terminal, or streams in tests): each line is
 * a user turn or a command (`/reset`, `/system …`, `/save FILE`, `/help`, `/exit`); the reply is written as it
 * arrives, thinking dimmed when `color` is on. Model text is untrusted: its control characters are written as
 * escapes, so it cannot drive the terminal. `interrupt()` (Ctrl-C) stops the reply in progress and keeps the loop.
 */
import { createInterface } from 'node:readline';
import type { Readable, Writable } from 'node:stream';
import { escapeControlChars } from '@cookbook/core';
import type { ChatSession } from './chat-session.js';

const DIM = '\x1b[2m';
const UNDIM = '\x1b[22m';

export const CHAT_HELP = [
  'commands:',
  '  /reset          forget the conversation (the system prompt stays)',
  '  /system TEXT    set the system prompt (/system alone removes it)',
  '  /save FILE      append the conversation to FILE as a JSONL line {"messages": [...]} (SFT data)',
  '  /exit           leave (or Ctrl-D); Ctrl-C stops a reply',
].join('\n');

/** Options of {@link runChatLoop}. */
export interface ChatLoopOptions {
  session: ChatSession;
  input: Readable;
  output: Writable;
  /** Dim thinking with ANSI. */
  color: boolean;
  /** Line editing and a prompt (a TTY). */
  terminal?: boolean;
}

/** A running loop. */
export interface ChatLoop {
  /** Resolves when the input ends or `/exit`. */
  done: Promise<void>;
  /** Stop the reply in progress; false when none runs. */
  interrupt(): boolean;
}

/** Run the chat over `input` and `output`. */
export function runChatLoop(options: ChatLoopOptions): ChatLoop {
  const { session, output, color } = options;
  const terminal = options.terminal === true;
  const rl = createInterface({
    input: options.input,
    ...(terminal ? { output, terminal: true } : { terminal: false }),
  });
  let current: AbortController | undefined;
  const write = (s: string) => output.write(s);
  const say = (s: string) => write(`${escapeControlChars(s)}\n`);
  rl.setPrompt('you> ');
  if (terminal) rl.on('SIGINT', () => loop.interrupt() || write('\n(Ctrl-D or /exit leaves)\n'));

  async function handle(line: string): Promise<boolean> {
    const text = line.trim();
    if (text === '') return true;
    if (text === '/exit' || text === '/quit') return false;
    if (text === '/help') {
      say(CHAT_HELP);
      return true;
    }
    if (text === '/reset') {
      session.reset();
      say('(conversation cleared)');
      return true;
    }
    if (text === '/system' || text.startsWith('/system ')) {
      const prompt = text.slice('/system'.length).trim();
      session.setSystem(prompt);
      session.reset();
      say(
        prompt === '' ? '(system prompt removed; conversation cleared)' : '(system prompt set; conversation cleared)',
      );
      return true;
    }
    if (text === '/save' || text.startsWith('/save ')) {
      const file = text.slice('/save'.length).trim();
      if (file === '') {
        say('usage: /save FILE');
        return true;
      }
      try {
        const n = session.save(file);
        say(`(appended ${n} messages to ${file})`);
      } catch (err) {
        say(`cannot save to ${file}: ${err instanceof Error ? err.message : String(err)}`);
      }
      return true;
    }
    if (text.startsWith('/') && !text.startsWith('//')) {
      say(`unknown command ${text.split(/\s/)[0]}\n${CHAT_HELP}`);
      return true;
    }
    // "//text" sends "/text".
    const userText = text.startsWith('//') ? text.slice(1) : line;
    current = new AbortController();
    let inThinking = false;
    try {
      const { message, end } = await session.reply(
        userText,
        (piece) => {
          const t = escapeControlChars(piece.text);
          if (piece.kind === 'thinking' && !inThinking && color) write(DIM);
          if (piece.kind === 'text' && inThinking && color) write(UNDIM);
          inThinking = piece.kind === 'thinking';
          write(t);
        },
        current.signal,
      );
      if (inThinking && color) write(UNDIM);
      write('\n');
      if (end === 'interrupted') say('(stopped)');
      else if (end === 'length') say('(reply cut at max_tokens)');
      for (const call of message.tool_calls ?? []) say(`(tool call: ${call.function.name} ${call.function.arguments})`);
    } catch (err) {
      if (inThinking && color) write(UNDIM);
      say(`\nerror: ${err instanceof Error ? err.message : String(err)}`);
    } finally {
      current = undefined;
    }
    return true;
  }

  const done = (async () => {
    if (terminal) rl.prompt();
    try {
      for await (const line of rl) {
        if (!(await handle(line))) break;
        if (terminal) rl.prompt();
      }
    } finally {
      rl.close();
    }
  })();

  const loop: ChatLoop = {
    done,
    interrupt() {
      if (current === undefined) return false;
      current.abort();
      return true;
    },
  };
  return loop;
}
