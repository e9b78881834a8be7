// summary: Turning a street address into coordinates through the geocoding service.
export async function geocode(address: string, fetcher: (url: string) => Promise<Response>): Promise<[number, number]> {
  const response = await fetcher(`/geocode?q=${encodeURIComponent(address)}`);
  const body = await response.json();
  return [body.lat, body.lon];
}
