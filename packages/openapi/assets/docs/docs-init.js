// Starts Swagger UI with the configuration the server wrote into the page (data-config on the
// mount point): the page's CSP forbids inline scripts, so this file is served beside the bundle.
(function () {
  'use strict';
  var mount = document.getElementById('swagger-ui');
  var config = JSON.parse(mount.getAttribute('data-config'));
  var options = Object.assign({}, config.options, {
    dom_id: '#swagger-ui',
    // Never send the document to an outside validator, never take a document URL from the query string.
    validatorUrl: null,
    queryConfigEnabled: false,
    presets: [window.SwaggerUIBundle.presets.apis].concat(config.urls ? [window.SwaggerUIStandalonePreset] : []),
    layout: config.urls ? 'StandaloneLayout' : 'BaseLayout',
  });
  if (config.urls) {
    // The top bar's document selector loads the chosen document through this plugin.
    options.plugins = [window.SwaggerUIBundle.plugins.DownloadUrl].concat(options.plugins || []);
    options.urls = config.urls;
    options['urls.primaryName'] = config.urls[0].name;
  } else {
    options.url = config.url;
  }
  window.ui = window.SwaggerUIBundle(options);
})();
