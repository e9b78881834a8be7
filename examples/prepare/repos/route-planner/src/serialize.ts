// summary: Encoding routes as GeoJSON line strings for the map client.
export function toGeoJson(points: [number, number][]): string {
  return JSON.stringify({ type: 'Feature', geometry: { type: 'LineString', coordinates: points.map(([lat, lon]) => [lon, lat]) } });
}
