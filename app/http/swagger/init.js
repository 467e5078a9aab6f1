// Swagger UI on the document beside this page (relative: a path prefix is kept), with no call to
// the public validator and "try it out" on.
window.addEventListener("load", () => {
  window.ui = SwaggerUIBundle({
    url: new URL("openapi.json", document.baseURI).href,
    dom_id: "#swagger-ui",
    validatorUrl: null,
    tryItOutEnabled: true,
    deepLinking: true,
  });
});
