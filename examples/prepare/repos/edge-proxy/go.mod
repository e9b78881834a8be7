module example.invalid/edge-proxy

go 1.22
