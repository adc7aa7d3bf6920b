import { describe, expect, it } from 'vitest';
import { createHashsizes, withHashsizes, withoutHashsize } from '../../src/kernel-text.js';

const SAVE = [
  'create a hash:net family inet hashsize 1024 maxelem 65536 bucketsize 12 initval 0x68946666',
  'add a 10.0.0.0/8',
  'create b hash:net family inet hashsize 2048 maxelem 65536 bucketsize 12 initval 0x1f496e61',
  'add b 10.0.0.1',
  'create l list:set size 8',
  'add l a',
  '',
].join('\n');

describe('createHashsizes (the project text: what each hash set is created with)', () => {
  it('reads a named hashsize, the kernel default for none, and skips list sets and member lines', () => {
    const text = [
      '-N a --exist nethash',
      '-N b --exist nethash maxelem 100000 hashsize 4096',
      '-N l --exist setlist',
      '-A a 10.0.0.1',
      'create c hash:ip,port family inet hashsize 128',
      '',
    ].join('\n');
    expect([...createHashsizes(text)]).toEqual([
      ['a', 1024],
      ['b', 4096],
      ['c', 128],
    ]);
  });

  it('refuses a hashsize it cannot read', () => {
    expect(() => createHashsizes('-N a --exist nethash hashsize\n')).toThrow(/unreadable hashsize/);
    expect(() => createHashsizes('-N a --exist nethash hashsize big\n')).toThrow(/unreadable hashsize/);
  });
});

describe('withHashsizes (the save text at the project text hashsizes)', () => {
  it('replaces the hashsize of the sets in the map and leaves every other line byte for byte', () => {
    const out = withHashsizes(SAVE, new Map([['a', 4096]]));
    expect(out.split('\n')).toEqual([
      'create a hash:net family inet hashsize 4096 maxelem 65536 bucketsize 12 initval 0x68946666',
      ...SAVE.split('\n').slice(1),
    ]);
  });

  it('returns the text unchanged when no set is in the map, or the map asks for what is there', () => {
    expect(withHashsizes(SAVE, new Map())).toBe(SAVE);
    expect(withHashsizes(SAVE, new Map([['zzz', 4096]]))).toBe(SAVE);
    expect(withHashsizes(SAVE, new Map([['a', 1024], ['b', 2048]]))).toBe(SAVE);
  });

  it('gives a create line without a hashsize one, after its family (or its type)', () => {
    const text = 'create a hash:net family inet maxelem 10\ncreate b hash:ip\n';
    expect(withHashsizes(text, new Map([['a', 256], ['b', 64]]))).toBe(
      'create a hash:net family inet hashsize 256 maxelem 10\ncreate b hash:ip hashsize 64\n',
    );
  });

  it('never gives a list:set a hashsize', () => {
    expect(withHashsizes(SAVE, new Map([['l', 4096]]))).toBe(SAVE);
  });

  it('leaves comments, member lines and look-alikes alone', () => {
    const text = [
      '# create a hash:net family inet hashsize 1024',
      'add a 10.0.0.1',
      'add hashsize 10.0.0.2',
      ' create-ish a hashsize 1',
      'createa hash:net hashsize 1',
      '',
    ].join('\n');
    expect(withHashsizes(text, new Map([['a', 4096], ['hashsize', 4096]]))).toBe(text);
  });

  it('reads words, not positions: a set named "hashsize", extra blanks, CRLF line ends', () => {
    const text = 'create hashsize hash:net family inet hashsize 1024\r\ncreate  x\thash:net   family inet\r\nadd x 10.0.0.1\r\n';
    expect(withHashsizes(text, new Map([['hashsize', 512], ['x', 8192]]))).toBe(
      'create hashsize hash:net family inet hashsize 512\r\ncreate x hash:net family inet hashsize 8192\r\nadd x 10.0.0.1\r\n',
    );
  });

  it('refuses a create line whose hashsize has no value', () => {
    expect(() => withHashsizes('create a hash:net family inet hashsize\n', new Map([['a', 64]]))).toThrow(/no value/);
  });
});

describe('withoutHashsize', () => {
  it('drops the hashsize of create lines only', () => {
    const text = '-N a --exist nethash hashsize 4096\n-N b --exist nethash maxelem 5 hashsize 64 \n-A a 10.0.0.1\n';
    expect(withoutHashsize(text)).toBe('-N a --exist nethash\n-N b --exist nethash maxelem 5\n-A a 10.0.0.1\n');
  });
});
