package health

import "net/http"

func Healthy(client *http.Client, url string) bool {
	resp, err := client.Get(url)
	return err == nil && resp.StatusCode == http.StatusOK
}
