import type { ToolSpec } from '@cookbook/core';
import { describe, expect, it } from 'vitest';
import doc from './__fixtures__/kimi/tool-declarations.json' with { type: 'json' };
import { kimiJsonTools, kimiToolDeclaration, kimiTypeScriptTools } from './kimi-tool-declaration.js';

const tools = doc.tools as unknown as ToolSpec[];

describe('Kimi K2.5 TypeScript-style tool declarations', () => {
  it("equal Moonshot's encoder on every fixture tool, alone and together", () => {
    tools.forEach((t, i) => {
      expect(kimiTypeScriptTools([t]), t.name).toBe(doc.expected[i]);
    });
    expect(kimiTypeScriptTools(tools)).toBe(doc.expectedAll);
  });

  it('writes nested objects and enums as the published examples show', () => {
    const user: ToolSpec = {
      name: 'create_user',
      description: 'Create a new user record.',
      parameters: {
        type: 'object',
        properties: {
          user: {
            type: 'object',
            properties: { name: { type: 'string' }, age: { type: 'integer' } },
            required: ['name'],
          },
        },
        required: ['user'],
      },
    };
    expect(kimiTypeScriptTools([user])).toBe(
      '# Tools\n\n## functions\nnamespace functions {\n// Create a new user record.\ntype create_user = (_: {\n  user: {\n' +
        '    name: string,\n    age?: number\n  }\n}) => any;\n}\n',
    );
    const status: ToolSpec = {
      name: 'set_status',
      description: '',
      parameters: {
        type: 'object',
        properties: { status: { enum: ['active', 'paused', 'done'] } },
        required: ['status'],
      },
    };
    expect(kimiTypeScriptTools([status])).toBe(
      '# Tools\n\n## functions\nnamespace functions {\ntype set_status = (_: {\n  status: "active" | "paused" | "done"\n}) => any;\n}\n',
    );
  });

  it('keeps $defs in insertion order and names a self reference "parameters"', () => {
    const zoo = kimiTypeScriptTools([tools.find((t) => t.name === 'zoo')!])!;
    expect(zoo.indexOf('interface Zebra')).toBeLessThan(zoo.indexOf('interface Apple'));
    expect(kimiTypeScriptTools([tools.find((t) => t.name === 'tree')!])).toContain(
      'type tree = (_: parameters) => any;',
    );
  });

  it('falls back to compact JSON, keys as given, when a schema cannot be written as TypeScript', () => {
    const unsupported: ToolSpec[] = [
      {
        name: 'broken',
        description: 'd',
        parameters: { type: 'object', properties: { x: { $ref: '#/$defs/Missing' } } },
      },
      { name: 'weird', description: 'd', parameters: { type: 'object', properties: { x: { title: 'no keyword' } } } },
      {
        name: 'badenum',
        description: 'd',
        parameters: { type: 'object', properties: { x: { type: 'string', enum: ['a', 1] } } },
      },
    ];
    for (const t of unsupported) {
      expect(kimiTypeScriptTools([t]), t.name).toBeUndefined();
      expect(kimiToolDeclaration([t])).toBe(JSON.stringify([{ type: 'function', function: t }]));
    }
    expect(kimiToolDeclaration([])).toBe('');
  });
});

describe('Kimi K2 JSON tool declarations', () => {
  it('are compact, with every key sorted and non-ASCII kept', () => {
    const t: ToolSpec = {
      name: 'météo',
      description: 'Wetter für eine Stadt',
      parameters: {
        type: 'object',
        properties: { unit: { type: 'string' }, city: { type: 'string' } },
        required: ['city'],
      },
    };
    expect(kimiJsonTools([t], true)).toBe(
      '[{"function":{"description":"Wetter für eine Stadt","name":"météo","parameters":{"properties":{"city":' +
        '{"type":"string"},"unit":{"type":"string"}},"required":["city"],"type":"object"}},"type":"function"}]',
    );
  });
});
