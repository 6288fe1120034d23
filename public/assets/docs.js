// /docs: starts Swagger UI (loaded from /assets/vendor/swagger-ui/ just before this script) on the
// chosen version's OpenAPI document. Nothing is fetched from anywhere but this origin.
const select = document.getElementById('api-version');
const link = document.getElementById('openapi-link');

function render() {
  const url = select.value;
  link.href = url;
  window.SwaggerUIBundle({
    url,
    dom_id: '#swagger-ui',
    presets: [window.SwaggerUIBundle.presets.apis],
    layout: 'BaseLayout',
    // The online validator badge would call another host.
    validatorUrl: null,
    deepLinking: false,
    displayRequestDuration: true,
    // A key pasted into Authorize lives in this page only.
    persistAuthorization: false,
  });
}

const fromHash = location.hash === '#v1' ? '/api/v1/openapi.json' : undefined;
if (fromHash) select.value = fromHash;
select.addEventListener('change', () => {
  history.replaceState(null, '', select.value.includes('/v1/') ? '#v1' : '#v2');
  render();
});
render();
