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
  if (request.mode === 'navigate' || url.pathname === '/') {
    event.respondWith(networkFirst(request, shell, '/'));
  } else if (url.pathname.startsWith(`/app/${version}/`) || url.pathname === '/manifest.webmanifest') {
    event.respondWith(caches.match(request).then((kept) => kept ?? fetch(request)));
  } else if (/^\/v1\/households\/[^/]+\/views\//.test(url.pathname)) {
    event.respondWith(networkFirst(request, views));
  }
});

/** The network's answer (kept for next time), or, without a network, the last one kept. */
async function networkFirst(request, cacheName, key = request) {
  const cache = await caches.open(cacheName);
  try {
    const answer = await fetch(request);
    if (answer.ok) await cache.put(key, answer.clone());
    return answer;
  } catch (error) {
    const kept = await cache.match(key);
    if (kept) return kept;
    throw error;
  }
}
