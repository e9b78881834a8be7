export const config = {
  tileServer: process.env.TILE_SERVER ?? 'https://tiles.example.invalid',
  cacheEntries: Number(process.env.ROUTE_CACHE ?? 512),
};
