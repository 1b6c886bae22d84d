// The view: puts the templates into the page and tells the controller what a
// person did (a tap, a form sent, a choice changed). It keeps what a person is
// typing: a live update redraws a screen's regions, never its forms.
import { t, tn } from './i18n.js';
import { timer } from './format.js';
import { text as markupText } from './template.js';
import { parseEntry, withName } from './parse-entry.js';
import { toastSide } from './list-laws.js';

export class View {
  constructor(doc = document) {
    this.doc = doc;
    this.main = doc.getElementById('main');
    this.nav = doc.getElementById('nav');
    this.toastBox = doc.getElementById('toast');
    this.title = doc.getElementById('title');
    this.liveMark = doc.getElementById('live');
    this.refusedBox = doc.getElementById('refused');
    this.refusedBox.addEventListener('click', (event) => this.clicked(event));
    this.handlers = {};
    this.timerTick = null;
    this.toastTimer = null;
    this.tapped = null;      // {top, bottom} of the row last tapped on the screen
    this.main.addEventListener('click', (event) => this.clicked(event));
    this.toastBox.addEventListener('click', (event) => this.clicked(event));
    this.main.addEventListener('submit', (event) => {
      const form = event.target.closest('form[data-form]');
      if (!form) return;
      event.preventDefault();
      this.tapped = null;
      this.call(form.dataset.form, form, new FormData(form));
    });
    this.main.addEventListener('change', (event) => {
      const el = event.target.closest('[data-change]');
      if (el) this.call(el.dataset.change, el, el.value);
    });
    doc.addEventListener('keydown', (event) => { if (event.key === 'Escape') this.closeToast(); });
  }

  /** What to do for each `data-action`, `data-form` and `data-change` name: `fn(element, detail, event)`. */
  bind(handlers) { Object.assign(this.handlers, handlers); }

  clicked(event) {
    const el = event.target.closest('[data-action]');
    if (!el || el.disabled) return;
    event.preventDefault();
    // Where the row tapped was: the message that follows covers neither it nor the next (list-laws.js).
    const row = el.closest('li')?.getBoundingClientRect();
    this.tapped = row && this.main.contains(el) ? { top: row.top, bottom: row.bottom } : null;
    this.call(el.dataset.action, el, undefined, event);
  }

  async call(name, el, detail, event) {
    const handler = this.handlers[name];
    if (!handler) return;
    const busy = el instanceof HTMLFormElement ? el.querySelector('button[type=submit]') : el;
    if (busy) busy.setAttribute('aria-busy', 'true');
    try { await handler(el, detail, event); }
    finally { if (busy) busy.removeAttribute('aria-busy'); }
  }

  /** A new screen: its whole markup; focus goes to its heading so a screen reader says where it is. */
  mount(markup, { focus = true } = {}) {
    this.main.innerHTML = markupText(markup);
    if (this.doc.body.dataset.role === 'viewer') {
      const note = this.doc.createElement('p');
      note.className = 'notice';
      note.textContent = t('viewerNotice');
      this.doc.querySelector('.screen-head')?.after(note);
    }
    this.paint(this.main);
    if (focus) this.doc.getElementById('screen-title')?.focus({ preventScroll: true });
  }

  /** Redraws one region of the screen, keeping the focus on the control that had it where it still exists. */
  region(name, markup) {
    const box = this.main.querySelector(`[data-region="${name}"]`);
    if (!box) return;
    const active = this.doc.activeElement;
    const key = active && box.contains(active) ? focusKey(active) : null;
    const kind = active?.dataset?.action, peers = kind ? [...box.querySelectorAll(`[data-action="${kind}"]`)] : [];
    const place = peers.indexOf(active);
    const open = [...box.querySelectorAll('details[open]')].map((d) => focusKey(d.closest('[data-item],[data-location],[data-store],[data-member],[data-list],[data-keep],li')));
    // What a person typed or chose and has not sent yet stays as it was.
    const typed = [...box.querySelectorAll('input, select, textarea')].filter(edited).map((el) => [focusKey(el), el.value, el.checked]);
    box.innerHTML = markupText(markup);
    for (const k of open) {
      const again = k && findByKey(box, k);
      again?.querySelector('details')?.setAttribute('open', '');
    }
    for (const [k, value, checked] of typed) {
      const again = k && findByKey(box, k);
      if (!again) continue;
      if (again.type === 'checkbox') again.checked = checked; else again.value = value;
    }
    this.paint(box);
    if (key) {
      // The control itself, or (a bought entry left the list) the same kind of control where it was, or the heading.
      const again = findByKey(box, key) ?? (place >= 0 ? [...box.querySelectorAll(`[data-action="${kind}"]`)][Math.min(place, peers.length - 2)] : null);
      (again ?? this.doc.getElementById('screen-title'))?.focus({ preventScroll: true });
    }
  }

  /** What the CSP keeps out of the markup: colours and lengths, set through the CSSOM. */
  paint(root) {
    for (const el of root.querySelectorAll('[data-color]')) {
      if (el.dataset.color) el.style.setProperty('--swatch', el.dataset.color);
    }
    for (const el of root.querySelectorAll('[data-fraction]')) {
      el.style.setProperty('--fraction', String(Math.max(0.01, Number(el.dataset.fraction) || 0)));
    }
    this.startTimers(root);
  }

  startTimers(root) {
    const clock = root.querySelector('[data-timer]');
    if (!clock && root === this.main) { clearInterval(this.timerTick); this.timerTick = null; }
    if (!clock) return;
    clearInterval(this.timerTick);
    const base = Number(clock.dataset.seconds), started = performance.now(), paused = clock.dataset.paused === 'true';
    const show = () => { clock.textContent = timer(base + (paused ? 0 : (performance.now() - started) / 1000)); };
    show();
    if (!paused) this.timerTick = setInterval(show, 1000);
  }

  setNav(markup) {
    if (markup === null) { this.nav.hidden = true; this.nav.innerHTML = ''; return; }
    this.nav.hidden = false;
    this.nav.setAttribute('aria-label', t('nav'));
    this.nav.innerHTML = markupText(markup);
  }

  setTitle(text) {
    this.title.textContent = text;
    this.doc.title = text === t('appName') ? text : `${text} · ${t('appName')}`;
  }

  /** The connection and the changes waiting to be sent, in the bar (a status a screen reader hears). */
  setLive(online, waiting = 0) {
    if (online === null) { this.liveMark.textContent = ''; this.liveMark.classList.remove('offline'); return; }   // no household: no mark
    const words = [online ? t('live') : t('offline')];
    if (waiting > 0) words.push(tn('waiting', waiting));
    this.liveMark.textContent = words.join(' · ');
    this.liveMark.classList.toggle('offline', !online || waiting > 0);
  }

  /** The refusals kept for the person, above the screen. */
  refusals(markup) {
    this.refusedBox.setAttribute('aria-label', t('notDone'));
    // Written only when it changed: an alert region rewritten is read out again.
    const text = markupText(markup);
    if (this.refusedBox.innerHTML === text) return;
    this.refusedBox.innerHTML = text;
    this.refusedBox.hidden = this.refusedBox.children.length === 0;
  }

  /** A message that goes away by itself; with `action`, a button (say "Undo") beside it. */
  toast(message, { action, label, data = {}, error = false } = {}) {
    clearTimeout(this.toastTimer);
    this.toastBox.hidden = false;
    this.toastBox.classList.toggle('error', error);
    this.toastBox.textContent = '';
    const words = this.doc.createElement('span');
    words.textContent = message;
    this.toastBox.append(words);
    if (action) {
      const button = this.doc.createElement('button');
      button.textContent = label;
      button.dataset.action = action;
      for (const [k, v] of Object.entries(data)) button.dataset[k] = v;
      this.toastBox.append(button);
    }
    const close = this.doc.createElement('button');
    close.className = 'icon';
    close.textContent = '×';
    close.setAttribute('aria-label', 'OK');
    close.dataset.action = 'closeToast';
    this.toastBox.append(close);
    this.toastBox.dataset.side = 'bottom';
    this.toastBox.dataset.side = toastSide(this.tapped, this.toastBox.getBoundingClientRect());
    this.toastTimer = setTimeout(() => this.closeToast(), error ? 12000 : 6000);
  }

  closeToast() { this.toastBox.hidden = true; this.toastBox.textContent = ''; }

  /** The suggestions under the "Item" field, or none. */
  suggestions(markup) {
    const box = this.doc.getElementById('add-suggestions');
    const input = this.doc.getElementById('add-item');
    if (!box || !input) return;
    const empty = !markup || markup.length === 0;
    box.innerHTML = empty ? '' : markupText(markup);
    box.hidden = empty;
    input.setAttribute('aria-expanded', String(!empty));
    // Owned as well as controlled while open: the combobox's listbox, for checkers and readers of either ARIA version.
    if (empty) input.removeAttribute('aria-owns'); else input.setAttribute('aria-owns', 'add-suggestions');
    input.removeAttribute('aria-activedescendant');
  }

  /** The screen's own heading (`#screen-title`) and the window's title (`title`, the heading unless said). */
  setHeading(heading, title = heading) {
    const el = this.doc.getElementById('screen-title');
    if (el) el.textContent = heading;
    this.setTitle(title);
  }

  /** The page's language, for screen readers and hyphenation. */
  setLanguage(lang) { this.doc.documentElement.lang = lang; }

  /** What the role allows shows (the style sheet hides a viewer's controls); null: no one signed in. */
  setRole(role) {
    if (role) this.doc.body.dataset.role = role;
    else this.doc.body.removeAttribute('data-role');
  }

  /** Shows or hides the field with that id (required while shown), and focuses it when shown. */
  reveal(id, shown) {
    const el = this.doc.getElementById(id);
    if (!el) return;
    el.closest('label')?.toggleAttribute('hidden', !shown);
    el.required = shown;
    if (shown) el.focus();
  }

  /** A question a person answers yes or no. */
  confirm(message) { return this.doc.defaultView.confirm(message); }

  /** Whether the control with that id is on the page; its value; a value put in (when it is there); focus to it. */
  has(id) { return Boolean(this.doc.getElementById(id)); }
  value(id) { return this.doc.getElementById(id)?.value; }
  setValue(id, value) { const el = this.doc.getElementById(id); if (el) el.value = value; }
  focus(id) { this.doc.getElementById(id)?.focus(); }
  focusMain() { this.main.focus(); }

  /** Whether a person is in the form `name` (`data-form`) now: a redraw waits. */
  editing(name) { return Boolean(this.form(name)?.contains(this.doc.activeElement)); }

  /** Whether a person typed in the form `name` since it was drawn or saved; `watchTyping` starts noticing; `saved` forgets. */
  typedIn(name) { return this.form(name)?.dataset.dirty === 'true'; }
  watchTyping(name) { this.form(name)?.addEventListener('input', (event) => { event.currentTarget.dataset.dirty = 'true'; }); }
  saved(form) { delete form.dataset.dirty; }

  form(name) { return this.doc.querySelector(`form[data-form="${name}"]`); }

  /** Redraws region `name`, keeping what region `kept` inside it shows (drawn by us: the invite codes of this visit). */
  regionKeeping(name, markup, kept) {
    const selector = `[data-region="${kept}"]`;
    const codes = this.doc.querySelector(selector)?.innerHTML ?? '';
    this.region(name, markup);
    const box = this.doc.querySelector(selector);
    if (box && codes) box.innerHTML = codes;
  }

  /** Markup put first into region `name` (an invite code just made). */
  prepend(name, markup) {
    this.doc.querySelector(`[data-region="${name}"]`)?.insertAdjacentHTML('afterbegin', markupText(markup));
  }

  /** Saves `content` as a file named `fileName` (the browser's download). */
  download(fileName, content, type) {
    const link = this.doc.createElement('a');
    link.href = URL.createObjectURL(new Blob([content], { type }));
    link.download = fileName;
    this.doc.body.append(link);
    link.click();
    link.remove();
    setTimeout(() => URL.revokeObjectURL(link.href), 10000);
  }

  /**
   * Suggestions under the "Item" field as a person types: `ask(typed)` answers their markup (the latest typing
   * only); arrows move, Enter takes one, Escape closes. A suggestion fills the name and its unit.
   */
  bindSuggestions(ask) {
    const input = this.doc.getElementById('add-item');
    const box = this.doc.getElementById('add-suggestions');
    if (!input || !box) return;
    let asked = 0, timer = null, active = -1;
    const options = () => [...box.querySelectorAll('[role=option]')];
    // The name chosen in place of the one typed; a quantity and unit typed with it stay (parse-entry.js).
    const choose = (option) => {
      const typedUnit = parseEntry(input.value).unit;
      input.value = withName(input.value, option.dataset.name);
      if (option.dataset.unit && !typedUnit) this.doc.getElementById('add-unit').value = option.dataset.unit;
      this.suggestions(null);
      input.focus();
    };
    const highlight = (n) => {
      const all = options();
      active = (n + all.length) % all.length;
      all.forEach((o, i) => o.setAttribute('aria-selected', String(i === active)));
      input.setAttribute('aria-activedescendant', all[active].id);
    };
    input.addEventListener('input', () => {
      clearTimeout(timer);
      const typed = input.value;
      if (!typed.trim()) { this.suggestions(null); return; }
      timer = setTimeout(async () => {
        const ticket = ++asked;
        try {
          const markup = await ask(typed);
          if (ticket === asked && input.value === typed) { active = -1; this.suggestions(markup); }
        } catch { /* suggestions are a help, never in the way */ }
      }, 120);
    });
    input.addEventListener('keydown', (event) => {
      const all = options();
      if (box.hidden || all.length === 0) return;
      if (event.key === 'ArrowDown') { event.preventDefault(); highlight(active + 1); }
      else if (event.key === 'ArrowUp') { event.preventDefault(); highlight(active - 1); }
      else if (event.key === 'Enter' && active >= 0) { event.preventDefault(); choose(all[active]); }
      else if (event.key === 'Escape') this.suggestions(null);
    });
    box.addEventListener('mousedown', (event) => event.preventDefault());   // keep the field's focus
    box.addEventListener('click', (event) => {
      const option = event.target.closest('[role=option]');
      if (option) choose(option);
    });
    // Closed a moment after the field loses the focus (a tap on a suggestion lands first); not when it is back by then
    // (a field cleared and typed in again, as WebDriver's clear does in Firefox: the suggestions for the new text stay).
    let closing = null;
    input.addEventListener('blur', () => { closing = setTimeout(() => this.suggestions(null), 150); });
    input.addEventListener('focus', () => clearTimeout(closing));
  }

  /** Drag to reorder the "In order" list: `reorder(order)` with the new order of `order()`'s items. */
  bindDrag(order, reorder) {
    const box = this.doc.querySelector('[data-list-order]');
    if (!box) return;
    let dragged = null;
    box.addEventListener('dragstart', (event) => {
      dragged = event.target.closest('li[data-item]')?.dataset.item ?? null;
      event.dataTransfer?.setData('text/plain', dragged ?? '');
    });
    box.addEventListener('dragover', (event) => { if (dragged) event.preventDefault(); });
    box.addEventListener('drop', (event) => {
      event.preventDefault();
      const target = event.target.closest('li[data-item]')?.dataset.item;
      if (!dragged || !target || target === dragged) return;
      const was = order();
      const moved = was.filter((i) => i !== dragged);
      moved.splice(moved.indexOf(target) + (was.indexOf(dragged) < was.indexOf(target) ? 1 : 0), 0, dragged);
      dragged = null;
      reorder(moved);
    });
  }
}

/** Whether a person changed a field from what the page drew. */
function edited(el) {
  if (el.type === 'checkbox') return el.checked !== el.defaultChecked;
  if (el.tagName === 'SELECT') return [...el.options].some((o) => o.selected !== o.defaultSelected);
  return el.value !== el.defaultValue;
}

/** How a control is found again after its region was redrawn. */
function focusKey(el) {
  if (!el) return null;
  if (el.id) return `#${el.id}`;
  const data = ['action', 'form', 'item', 'location', 'store', 'member', 'list', 'device', 'by', 'keep'].map((k) => el.dataset?.[k] ?? '').join('|');
  const form = el.form?.dataset ? `${el.form.dataset.form ?? ''}:${el.form.dataset.item ?? el.form.dataset.list ?? el.form.dataset.member ?? el.form.dataset.location ?? el.form.dataset.store ?? ''}` : '';
  return `${el.tagName}|${el.getAttribute('name') ?? ''}|${el.getAttribute('aria-label') ?? ''}|${form}|${data}`;
}

function findByKey(root, key) {
  if (key.startsWith('#')) return root.querySelector(key);
  return [...root.querySelectorAll('*')].find((el) => focusKey(el) === key) ?? null;
}
