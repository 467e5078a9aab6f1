// Reads a JSON list of HTTPRoute objects on standard input and writes one line per problem that
// the Gateway API's published types find (@kubernetes-models/gateway-api, generated from
// sigs.k8s.io/gateway-api/apis/v1); nothing when every object is valid.
import { HTTPRoute } from "@kubernetes-models/gateway-api/gateway.networking.k8s.io/v1/HTTPRoute";

let input = "";
for await (const chunk of process.stdin) input += chunk;
for (const object of JSON.parse(input)) {
  try {
    new HTTPRoute(object).validate();
  } catch (error) {
    console.log(`${object.metadata?.name}: ${error.message}`);
  }
}
