import { TrieMatcher } from './matcher.js';
import { runMatcherSuite } from '../../test/matcher.case.js';

runMatcherSuite('TrieMatcher', () => new TrieMatcher<string>());

describe('TrieMatcher registration errors', () => {
  it('rejects a ":" segment without a name', () => {
    expect(() => new TrieMatcher<string>().add('GET', '/a/:', 'x')).toThrow(/without a name/);
  });

  it('rejects a repeated param name', () => {
    expect(() => new TrieMatcher<string>().add('GET', '/a/:id/b/:id', 'x')).toThrow(/repeats the param name "id"/);
  });
});
