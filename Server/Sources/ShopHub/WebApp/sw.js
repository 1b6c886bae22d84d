// The service worker (SPEC 12, offline): the app opens without a network —
// after a reload, after the phone was restarted — with the last views it saw.
// The hub writes the version and the list of the app's files in here when it
// reads this file (%APP_VERSION% and %APP_FILES%).
const version = '%APP_VERSION%';
const files = %APP_FILES%;
const shell = `shell-${version}`;
const views = 'views';

self.addEventListener('install', (event) => {
  event.waitUntil(caches.open(shell).then((cache) => cache.addAll(['/', ...files])).then(() => self.skipWaiting()));
});

self.addEventListener('activate', (event) => {
  // An older app's files go; the views stay (the same household's, as the hub answered them).
  event.waitUntil(caches.keys()
    .then((keys) => Promise.all(keys.filter((key) => key.startsWith('shell-') && key !== shell).map((key) => caches.delete(key))))
    .then(() => self.clients.claim()));
});

self.addEventListener('fetch', (event) => {
  const request = event.request;
  const url = new URL(request.url);
  // Only this hub's reads: a push or a pull goes to the network as it is (the outbox keeps what could not go).
  if (url.origin !== self.location.origin || request.method !== 'GET') return;
  if (url.pathname === '/') {
    event.respondWith(networkFirst(request, shell, '/', isPage));
  } else if (url.pathname.startsWith(`/app/${version}/`) || url.pathname === '/manifest.webmanifest') {
    event.respondWith(caches.match(request).then((kept) => kept ?? fetch(request)));
  } else if (/^\/v1\/households\/[^/]+\/views\//.test(url.pathname) && !url.pathname.endsWith('/views/suggestions')) {
    // Suggestions are asked at every keystroke: not kept (offline, "Add" names the item and the hub finds it).
    event.respondWith(networkFirst(request, views));
  }
});

const isPage = (answer) => (answer.headers.get('Content-Type') ?? '').startsWith('text/html');
/** How long a slow network is waited for before the kept answer is shown (a weak signal in a shop). */
const patience = 4000;

/** The network's answer (kept for next time, if `keep` says so), or, without a network, the last one kept. */
async function networkFirst(request, cacheName, key = request, keep = (answer) => answer.ok) {
  const cache = await caches.open(cacheName);
  const fetched = fetch(request).then((answer) => {
    if (answer.ok && keep(answer)) {
      const copy = answer.clone();
      // Kept after it was answered: the page does not wait for the disk.
      cache.put(key, copy).catch(() => {});
    }
    return answer;
  });
  const late = new Promise((resolve) => setTimeout(resolve, patience, null));
  try {
    const answer = await Promise.race([fetched, late.then(() => cache.match(key).then((kept) => kept ?? fetched))]);
    if (answer) return answer;
    return await fetched;
  } catch (error) {
    const kept = await cache.match(key);
    if (kept) return kept;
    throw error;
  }
}
