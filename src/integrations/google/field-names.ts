/**
 * The request field a Google API reads a query parameter name as: its lowerCamelCase JSON name, whether it
 * was given so (`pageToken`) or as the proto field name (`page_token`), which Google reads as the same field.
 *
 * Google's REST APIs are gRPC transcoded: a request field outside the path and the body is a query parameter
 * whose "parameter name is the field path in the request message" (googleapis/googleapis@f8291d2:
 * google/api/http.proto, "Rules for HTTP mapping"), that is its proto name (`page_size` in the GA4 Admin API's
 * ListPropertiesRequest, google/analytics/admin/v1beta/analytics_admin.proto), and Google's transcoder finds a
 * field by its JSON name or by that name alike (grpc-ecosystem/grpc-httpjson-transcoding@a6e226f:
 * src/type_helper.cc `FindField`, test/type_helper_test.cc `FindFieldCamelCaseTests`: `firstName` and
 * `first_name` are one field). The YouTube Data and Analytics APIs are served the same way, from the same
 * platform: their discovery documents name youtube(analytics).googleapis.com with an mTLS root and the
 * platform's `$.xgafv` parameter, and YouTube's says an id is "required for One Platform"
 * (googleapis/google-api-go-client@01d3654: youtube/v3/youtube-api.json, captions.download;
 * @9542c88: youtubeanalytics/v2/youtubeanalytics-api.json).
 *
 * The JSON name is protoc's: each `_` dropped and the character after it upper-cased.
 */
export function googleFieldOf(name: string): string {
  return name.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase())
}
