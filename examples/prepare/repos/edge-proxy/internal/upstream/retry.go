// summary: Retrying idempotent requests on another backend, with a budget.
// read-when: a failed upstream call is or is not retried
package upstream

func ShouldRetry(method string, attempt, budget int) bool {
	idempotent := method == "GET" || method == "HEAD" || method == "PUT" || method == "DELETE"
	return idempotent && attempt < budget
}
