// The web app's one escaping point (js/template.js: `esc` and the `html` tagged template) against the
// payloads that got through the report's old escaper: a scalar that joins its neighbour (a Prepend
// scalar before `<`, a combining mark or a variation selector after it, a joiner) hides nothing here,
// since the replacement runs per UTF-16 code unit. Without a browser.
// Run: node --test Server/Tests/WebApp/
import { test } from 'node:test';
import assert from 'node:assert/strict';

import { esc, html, raw } from '../../Sources/ShopHub/WebApp/js/template.js';

const joiners = ['\u0600', '\u0605', '\u06DD', '\u070F', '\u0D4E', '\u{110BD}', '\u0300', '\u036F', '\u20D0',
  '\u200C', '\u200D', '\uFE0F', '\u{E0100}', '\u0903', '\u{1F3FB}'];
const specials = { '<': '&lt;', '>': '&gt;', '&': '&amp;', '"': '&quot;', "'": '&#39;' };
const unescape = (text) => text.replace(/&(lt|gt|amp|quot|#39);/g, (m) => Object.keys(specials).find((k) => specials[k] === m));

test('every joining scalar before and after each special character: the character is escaped, the text reads back', () => {
  for (const joiner of joiners) {
    for (const [special, entity] of Object.entries(specials)) {
      for (const text of [joiner + special, special + joiner, `Milk${joiner}${special}x${joiner}`]) {
        const escaped = esc(text);
        assert.doesNotMatch(escaped, /[<>"']/, JSON.stringify(text));
        assert.ok(escaped.includes(entity), JSON.stringify(text));
        assert.equal(unescape(escaped), text);
      }
    }
  }
});

test('the attack as it was found, in a text and in an attribute of a template: no tag, no attribute opens', () => {
  const payload = 'Milk\u0600<img src=x onerror=alert(4)//\u0600>';
  assert.equal(html`<p title="${payload}">${payload}</p>`.text,
    '<p title="Milk\u0600&lt;img src=x onerror=alert(4)//\u0600&gt;">Milk\u0600&lt;img src=x onerror=alert(4)//\u0600&gt;</p>');
  const quoted = `x"\u0301 onfocus=alert(1) autofocus '\u200D`;
  assert.equal(html`<input value="${quoted}">`.text, '<input value="x&quot;\u0301 onfocus=alert(1) autofocus &#39;\u200D">');
});

test('values are escaped however they come: numbers, arrays joined, nothing for null; raw() alone passes through', () => {
  assert.equal(html`<b>${[1, '<', null, undefined, false, 'ok']}</b>`.text, '<b>1&lt;ok</b>');
  assert.equal(html`<b>${raw('<i>kept</i>')}</b>`.text, '<b><i>kept</i></b>');
});

test('random texts of letters, joiners, specials and emoji: nothing raw is left, and unescaping gives the text back', () => {
  let seed = 0x5ec;
  const next = () => (seed = (seed * 1103515245 + 12345) % 2147483648);
  const pieces = [...joiners, ...Object.keys(specials), 'a', 'Z', 'ä', ' ', '=', '🧀', '\u{1F1E9}', '\u0915', '\u094D'];
  for (let round = 0; round < 2000; round++) {
    let text = '';
    for (let n = next() % 25; n > 0; n--) text += pieces[next() % pieces.length];
    const escaped = esc(text);
    assert.doesNotMatch(escaped, /[<>"']/);
    assert.equal(unescape(escaped), text);
  }
});
