import type { FastifyInstance, FastifyRequest } from 'fastify'
import { GATEWAY } from './auth.js'
import { BamboohrHttpError } from './errors.js'
import type { BamboohrState } from './state.js'

/**
 * Employee writes (create-employee, update-employee in
 * BambooHR/bhr-api-php@a6a10ca26972470d31d494b9caaf7e5db9eaf945:specs/public.yaml): a JSON object of field
 * names and values; create needs `firstName` and `lastName` and answers 201 with no body and a `Location`
 * header; update answers 200 with no body. Both tell the webhooks.
 */
function fieldsOf(request: FastifyRequest): Record<string, string | null> {
  if (request.headers['content-type'] !== 'application/json' || typeof request.body !== 'object') {
    throw new BamboohrHttpError(400, 'Malformed XML')
  }
  const body = (request.body ?? {}) as Record<string, unknown>
  for (const [name, value] of Object.entries(body)) {
    // "If an employee field was given an invalid value" is a 409 (create-employee).
    if (value !== null && typeof value !== 'string') {
      throw new BamboohrHttpError(409, `Invalid value for field ${name}`)
    }
  }
  return body as Record<string, string | null>
}

export function registerEmployeeWrites(app: FastifyInstance, state: BamboohrState): void {
  app.post(`${GATEWAY}/employees`, async (request, reply) => {
    const fields = fieldsOf(request)
    if (!fields.firstName || !fields.lastName) {
      throw new BamboohrHttpError(400, 'firstName and lastName are required')
    }
    const employee = state.addEmployee(fields)
    const { domain } = request.params as { domain: string }
    return reply
      .code(201)
      .header(
        'location',
        `${request.protocol}://${request.host}/api/gateway.php/${domain}/v1/employees/${employee.id}`,
      )
      .send('')
  })

  app.post(`${GATEWAY}/employees/:id`, async (request, reply) => {
    const { id } = request.params as { id: string }
    const employee = /^\d+$/.test(id) ? state.employees.get(Number(id)) : undefined
    if (!employee) throw new BamboohrHttpError(404, 'Employee not found')
    // "The API user does not have permission to see the employee or to update any of the requested fields"
    // (update-employee, 403; the message is ours).
    if (!state.canSee(employee.id)) throw new BamboohrHttpError(403, 'Permission denied to view employee')
    state.updateEmployee(employee, fieldsOf(request))
    return reply.code(200).send('')
  })
}
