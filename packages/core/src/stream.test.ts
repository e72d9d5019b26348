import { isTracked, toStreamEvent, tracked } from './stream.js';

describe('tracked()', () => {
  it('marks a value with the id a client resumes from', () => {
    const event = tracked('42', { status: 'shipped' });
    expect(isTracked(event)).toBe(true);
    expect(event.id).toBe('42');
    expect(event.data).toEqual({ status: 'shipped' });
    expect(Object.isFrozen(event)).toBe(true);
  });

  it('tells tracked values from look-alikes with an id and data', () => {
    expect(isTracked({ id: '1', data: 2 })).toBe(false);
    expect(isTracked(null)).toBe(false);
    expect(isTracked('1')).toBe(false);
  });

  it('refuses ids that server-sent events cannot carry', () => {
    expect(() => tracked('a\nb', 1)).toThrow('tracked() ids may not contain line breaks or NUL characters');
    expect(() => tracked('a\rb', 1)).toThrow(TypeError);
    expect(() => tracked('a\0b', 1)).toThrow(TypeError);
    expect(() => tracked(7 as unknown as string, 1)).toThrow('tracked() expects a string id, got number');
  });

  it('becomes a stream event: a tracked value its id and data, any other value no id', () => {
    expect(toStreamEvent(tracked('7', 'x'))).toEqual({ id: '7', data: 'x' });
    expect(toStreamEvent<unknown>({ id: '1', data: 2 })).toEqual({ id: undefined, data: { id: '1', data: 2 } });
  });
});
